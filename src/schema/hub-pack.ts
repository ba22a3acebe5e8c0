/** Public, safety-checked community teaching Packs. Payloads never leave the database. */
import type { Prisma } from "../generated/prisma/client.js";
import { AssetType as AssetTypes, EducationLevel as EducationLevels } from "../generated/prisma/enums.js";
import { builder } from "./builder.js";
import { COUNT, jsonSchema, SEMVER } from "./json-schema.js";
import { COST, PAGE, pageCost } from "./cost.js";
import { compareSemver } from "../domain/semver.js";
import { literal, present } from "./arguments.js";
import { type Param, type SqlOrder, sqlColumn, sqlForm, sqlOrder } from "./sql-forms.js";

function newestFirst<V extends { publishedAt: Date; version: string }>(versions: V[]): V[] {
  return [...versions].sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime() || compareSemver(b.version, a.version));
}

const AssetType = builder.enumType("AssetType", {
  description: "What a Pack contains.",
  values: Object.values(AssetTypes),
});

const EducationLevel = builder.enumType("EducationLevel", {
  description: "The education level a Pack is designed for.",
  values: Object.values(EducationLevels),
});

const PackSort = builder.enumType("PackSort", {
  description: "Order of a Pack list; ties are broken by id ascending.",
  values: {
    recent: { description: "Newest passed version first." },
    stars: { description: "Most stars first." },
    installs: { description: "Most installs first." },
  } as const,
});

const HubPackVersion = builder.prismaObject("HubPackVersion", {
  description: "A version of a Pack that passed the safety check. Its content is never returned.",
  fields: (t) => ({
    version: t.exposeString("version", { ...SEMVER, description: "Semantic version." }),
    publishedAt: t.expose("publishedAt", { type: "DateTime", description: "When it was published." }),
    changelog: t.exposeString("changelog", { nullable: true, description: "What changed." }),
  }),
});

/**
 * The columns every Pack row is read with: all but the README, which only
 * its own field reads (`readmeMd` selects it), so that a list of Packs does
 * not read every Pack's README. Their fields resolve from the row as it is:
 * an exposed field selects its own column, a lookup per row and field in the
 * Pothos prisma plugin (as Course's, ./course.ts).
 */
const PACK_COLUMNS = {
  id: true,
  name: true,
  summary: true,
  assetType: true,
  subject: true,
  educationLevel: true,
  bloomLevels: true,
  difficulty: true,
  starCount: true,
  installCount: true,
  ownerName: true,
  latestVersion: true,
} as const;

builder.prismaNode("HubPack", {
  description: "A public community teaching Pack that passed the safety check.",
  select: PACK_COLUMNS,
  id: { field: "id", description: "Global ID of the Pack." },
  fields: (t) => ({
    databaseId: t.string({
      description: "The Pack's own id (the REST `id`).",
      extensions: { ...jsonSchema({ minLength: 1 }).extensions, ...sqlColumn("id") },
      resolve: (p) => p.id,
    }),
    name: t.string({ description: "Name.", resolve: (p) => p.name }),
    summary: t.string({ nullable: true, description: "One-paragraph summary.", resolve: (p) => p.summary }),
    readmeMd: t.exposeString("readmeMd", { nullable: true, description: "README in Markdown." }),
    assetType: t.field({ type: AssetType, description: "What the Pack contains.", resolve: (p) => p.assetType }),
    latestVersion: t.string({
      ...SEMVER,
      nullable: true,
      description: "Highest passed version in semantic-version order (`1.10.0` above `1.9.0`); null when none passed.",
      resolve: (p) => p.latestVersion,
    }),
    subject: t.string({ nullable: true, description: "Teaching Card: subject.", resolve: (p) => p.subject }),
    educationLevel: t.field({
      type: EducationLevel,
      nullable: true,
      description: "Teaching Card: education level.",
      resolve: (p) => p.educationLevel,
    }),
    bloomLevels: t.stringList({ description: "Teaching Card: Bloom's taxonomy levels.", resolve: (p) => p.bloomLevels }),
    difficulty: t.string({ nullable: true, description: "Teaching Card: difficulty.", resolve: (p) => p.difficulty }),
    starCount: t.int({ ...COUNT, description: "Community statistics: stars.", resolve: (p) => p.starCount }),
    installCount: t.int({ ...COUNT, description: "Community statistics: installs.", resolve: (p) => p.installCount }),
    ownerName: t.string({ nullable: true, description: "The publisher's display name.", resolve: (p) => p.ownerName }),
    versions: t.field({
      type: [HubPackVersion],
      description: "Versions that passed the safety check, newest first (same instant: higher version first).",
      // Loaded with the Pack; sorted here because versions compare as
      // semantic versions, which SQL text order is not.
      select: { versions: true },
      complexity: COST.row * COST.unpagedItems,
      resolve: (pack) => newestFirst(pack.versions),
    }),
  }),
});

export interface PackFilterArgs {
  q?: string | null | undefined;
  assetType?: Prisma.HubPackWhereInput["assetType"] | null | undefined;
  educationLevel?: Prisma.HubPackWhereInput["educationLevel"] | null | undefined;
}

function packWhere(args: PackFilterArgs): Prisma.HubPackWhereInput {
  const q = present(args.q);
  return {
    ...(args.assetType ? { assetType: args.assetType } : {}),
    ...(args.educationLevel ? { educationLevel: args.educationLevel } : {}),
    ...(q !== undefined
      ? {
          OR: [
            { name: { contains: literal(q), mode: "insensitive" } },
            { summary: { contains: literal(q), mode: "insensitive" } },
            { subject: { contains: literal(q), mode: "insensitive" } },
          ],
        }
      : {}),
  };
}

type PackSortName = "recent" | "stars" | "installs";

const PACK_ORDER: Record<PackSortName, Prisma.HubPackOrderByWithRelationInput[]> = {
  recent: [{ latestPublishedAt: { sort: "desc", nulls: "last" } }, { id: "asc" }],
  stars: [{ starCount: "desc" }, { id: "asc" }],
  installs: [{ installCount: "desc" }, { id: "asc" }],
};

/** PACK_ORDER as the SQL form reads it. */
const PACK_SQL_ORDER = Object.fromEntries(Object.entries(PACK_ORDER).map(([sort, order]) => [sort, sqlOrder(order)])) as Record<
  PackSortName,
  SqlOrder[]
>;

/**
 * packWhere in SQL, on the Pack row `row`: the same equalities, and `q` as
 * Prisma writes `contains` with `mode: "insensitive"` (ILIKE of the escaped
 * term between `%`s) on each of the three columns.
 */
function packWhereSql(args: PackFilterArgs, row: string, param: Param): string[] {
  const where: string[] = [];
  if (args.assetType) where.push(`${row}.asset_type::text = ${param(args.assetType, "text")}`);
  if (args.educationLevel) where.push(`${row}.education_level::text = ${param(args.educationLevel, "text")}`);
  const q = present(args.q);
  if (q !== undefined) {
    const pattern = param(`%${literal(q)}%`, "text");
    where.push(`(${["name", "summary", "subject"].map((c) => `${row}.${c} ILIKE ${pattern}`).join(" OR ")})`);
  }
  return where;
}

builder.queryFields((t) => ({
  hubPacks: t.prismaConnection({
    type: "HubPack",
    cursor: "id",
    description: "Public, safety-checked Packs.",
    complexity: pageCost(),
    args: {
      q: t.arg.string({ description: "Case-insensitive substring of the name, summary or subject." }),
      assetType: t.arg({ type: AssetType, description: "Only this asset type." }),
      educationLevel: t.arg({ type: EducationLevel, description: "Only this education level." }),
      sort: t.arg({ type: PackSort, required: true, defaultValue: "recent", description: "Order of the list." }),
    },
    // From the start of the list (a page after a cursor is the resolver's): one statement with the document's other fields.
    extensions: sqlForm({
      kind: "page",
      model: "HubPack",
      cursor: "id",
      orderBy: (args) => PACK_SQL_ORDER[args.sort as PackSortName],
      defaultSize: PAGE.default,
      maxSize: PAGE.max,
      list: (args, { row, param }, _limit, after) =>
        after === undefined ? { from: `hub_pack ${row}`, where: packWhereSql(args as PackFilterArgs, row, param) } : undefined,
    }),
    resolve: (query, _root, args, ctx) => ctx.prisma.hubPack.findMany({ ...query, where: packWhere(args), orderBy: PACK_ORDER[args.sort] }),
    totalCount: (_conn, args, ctx) => ctx.prisma.hubPack.count({ where: packWhere(args) }),
  }),
  hubPack: t.prismaField({
    type: "HubPack",
    nullable: true,
    description: "One public, safety-checked Pack by id; null otherwise.",
    args: { id: t.arg.string({ required: true, description: "The Pack's id." }) },
    resolve: (query, _root, args, ctx) => ctx.prisma.hubPack.findUnique({ ...query, where: { id: args.id } }),
  }),
}));
