/** Conferences the team took part in or is watching. */
import type { ConferenceRelationship as Relationship } from "../generated/prisma/enums.js";
import { builder } from "./builder.js";
import { COUNT, POSITIVE } from "./json-schema.js";
import { PAGE, pageCost } from "./cost.js";

const ConferenceRelationship = builder.enumType("ConferenceRelationship", {
  description: "How the team relates to a conference.",
  values: {
    participated: { description: "The team published a paper, gave an invited talk or won a competition award there." },
    watching: { description: "The team follows it and plans to submit later; no participation record yet." },
  } as const satisfies Record<Relationship, { description: string }>,
});

builder.prismaNode("Conference", {
  description: "A conference.",
  id: { field: "slug", description: "Global ID of the conference." },
  fields: (t) => ({
    slug: t.exposeString("slug", { description: "Stable identifier of the conference." }),
    name: t.exposeString("name", { description: "Full name." }),
    nameShort: t.exposeString("nameShort", { nullable: true, description: "Short name." }),
    year: t.exposeInt("year", { ...POSITIVE, description: "Year it takes place." }),
    dates: t.exposeString("dates", { nullable: true, description: "Dates, as published." }),
    location: t.exposeString("location", { nullable: true, description: "Location." }),
    website: t.exposeString("website", { nullable: true, description: "Website." }),
    organizer: t.exposeString("organizer", { nullable: true, description: "Organizer." }),
    indexing: t.exposeString("indexing", { nullable: true, description: "Where its proceedings are indexed." }),
    relationship: t.expose("relationship", { type: ConferenceRelationship, description: "The team's relationship to it." }),
    paperCount: t.int({
      ...COUNT,
      description: "Number of the team's papers whose `conference` is this conference's slug.",
      resolve: (c, _args, ctx) => ctx.loaders.paperCountByConference.load(c.slug),
    }),
  }),
});

builder.queryField("conferences", (t) =>
  t.prismaConnection({
    type: "Conference",
    cursor: "slug",
    description: "Conferences, newest year first, then by slug.",
    defaultSize: PAGE.long,
    maxSize: PAGE.long,
    complexity: pageCost(PAGE.long, PAGE.long),
    resolve: (query, _root, _args, ctx) => ctx.prisma.conference.findMany({ ...query, orderBy: [{ year: "desc" }, { slug: "asc" }] }),
    totalCount: (_conn, _args, ctx) => ctx.prisma.conference.count(),
  }),
);
