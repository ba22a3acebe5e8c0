/** The GraphQL schema: each file registers its types and root fields. */
import "./scalars.js";
import "./university.js";
import "./course.js";
import "./university-courses.js";
import "./course-stats.js";
import "./paper.js";
import "./conference.js";
import "./hub-pack.js";
import "./environment.js";
import { isObjectType } from "graphql";
import { builder } from "./builder.js";
import { COUNT } from "./json-schema.js";
import { sharedPathResolvers } from "./shared-paths.js";

export const schema = builder.toSchema({ sortSchema: true });

// The Prisma plugin adds `totalCount` to connections without a way to
// describe it; describe it here, once for all connections.
for (const type of Object.values(schema.getTypeMap())) {
  const totalCount = isObjectType(type) && type.name.endsWith("Connection") ? type.getFields().totalCount : undefined;
  if (totalCount && !totalCount.description) {
    totalCount.description = "Number of items in the whole list, on all pages.";
    totalCount.extensions = { ...totalCount.extensions, ...COUNT.extensions };
  }
}

// Under graphql-jit (src/plugins/compiled-execution.ts) resolvers see response paths as graphql-js gives them.
sharedPathResolvers(schema);
