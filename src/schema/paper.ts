/** The team's academic papers. */
import { builder } from "./builder.js";
import { POSITIVE } from "./json-schema.js";
import { PAGE, pageCost } from "./cost.js";
import { present } from "./arguments.js";

builder.prismaNode("Paper", {
  description: "An academic paper of the platform's team.",
  id: { field: "slug", description: "Global ID of the paper." },
  fields: (t) => ({
    slug: t.exposeString("slug", { description: "Stable identifier of the paper." }),
    title: t.exposeString("title", { description: "Title." }),
    titleZh: t.exposeString("titleZh", { nullable: true, description: "Chinese title." }),
    authors: t.string({
      nullable: true,
      description: "Authors, joined with `, `; null when none are listed.",
      resolve: (p) => (p.authors.length ? p.authors.join(", ") : null),
    }),
    authorList: t.exposeStringList("authors", { description: "Authors, one per entry." }),
    conference: t.exposeString("conference", { nullable: true, description: "Slug of the conference it appeared at." }),
    year: t.exposeInt("year", { ...POSITIVE, description: "Year of publication." }),
    doi: t.exposeString("doi", { nullable: true, description: "DOI." }),
    category: t.exposeString("category", { nullable: true, description: "Category." }),
    platformFeature: t.exposeString("platformFeature", { nullable: true, description: "The platform feature the paper relates to." }),
    award: t.exposeString("award", { nullable: true, description: "Award received, if any." }),
  }),
});

function paperWhere(args: { category?: string | null | undefined; year?: number | null | undefined }) {
  const category = present(args.category);
  return {
    ...(category !== undefined ? { category } : {}),
    ...(args.year !== null && args.year !== undefined ? { year: args.year } : {}),
  };
}

builder.queryField("papers", (t) =>
  t.prismaConnection({
    type: "Paper",
    cursor: "slug",
    description: "Papers, newest year first, then by slug.",
    defaultSize: PAGE.long,
    maxSize: PAGE.long,
    complexity: pageCost(PAGE.long, PAGE.long),
    args: {
      category: t.arg.string({ description: "Only this category (exact)." }),
      year: t.arg.int({ description: "Only this year." }),
    },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.paper.findMany({ ...query, where: paperWhere(args), orderBy: [{ year: "desc" }, { slug: "asc" }] }),
    totalCount: (_conn, args, ctx) => ctx.prisma.paper.count({ where: paperWhere(args) }),
  }),
);
