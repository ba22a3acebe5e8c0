/** The GraphQL schema: each file registers its types and root fields. */
import "./scalars.js";
import "./university.js";
import "./course.js";
import "./course-stats.js";
import "./paper.js";
import "./conference.js";
import "./hub-pack.js";
import { builder } from "./builder.js";

export const schema = builder.toSchema({ sortSchema: true });
