/** Universities: the schools courses belong to and environment data is aggregated for. */
import type { Country as CountryCode } from "../generated/prisma/enums.js";
import { INT32_MAX } from "../input-limits.js";
import { builder } from "./builder.js";
import { POSITIVE } from "./json-schema.js";
import { PAGE, pageCost } from "./cost.js";
import { present } from "./arguments.js";
import { sqlForm } from "./sql-forms.js";

const Country = builder.enumType("Country", {
  description: "The country of a school or station; it decides the AQI standard (TW: MOENV, US: EPA).",
  values: { TW: { description: "Taiwan" }, US: { description: "United States" } } as const satisfies Record<
    CountryCode,
    { description: string }
  >,
});

/** Where-clause for a school reference: a numeric id, or a code in any case. */
export function schoolRefWhere(ref: string): { id: number } | { codeKey: string } {
  const trimmed = ref.trim();
  return /^\d+$/.test(trimmed) && Number(trimmed) <= INT32_MAX ? { id: Number(trimmed) } : { codeKey: trimmed.toLowerCase() };
}

/** Matches a school by code (case-insensitive) or by exact Chinese name. */
export function universityMatch(value: string) {
  return { OR: [{ codeKey: value.toLowerCase() }, { nameZh: value }] };
}

builder.prismaNode("University", {
  description: "A university on the platform.",
  id: { field: "id", description: "Global ID of the university." },
  fields: (t) => ({
    databaseId: t.exposeInt("id", { ...POSITIVE, description: "Numeric school identifier (the REST `id`)." }),
    code: t.exposeString("code", { description: "School code, such as `NTU`; matched case-insensitively." }),
    nameZh: t.exposeString("nameZh", { description: "Chinese name." }),
    nameEn: t.exposeString("nameEn", { nullable: true, description: "English name." }),
    shortName: t.exposeString("shortName", { nullable: true, description: "Short name." }),
    region: t.exposeString("region", { nullable: true, description: "Region label, usually a city." }),
    country: t.expose("country", { type: Country, description: "Country of the school." }),
    timezone: t.exposeString("timezone", { description: "IANA time zone; environment days are counted in it." }),
    latitude: t.exposeFloat("latitude", { description: "Latitude in degrees (WGS 84)." }),
    longitude: t.exposeFloat("longitude", { description: "Longitude in degrees (WGS 84)." }),
  }),
});

builder.queryFields((t) => ({
  universities: t.prismaConnection({
    type: "University",
    cursor: "id",
    description: "Universities, by id ascending.",
    defaultSize: PAGE.long,
    maxSize: PAGE.long,
    complexity: pageCost(PAGE.long, PAGE.long),
    args: { region: t.arg.string({ description: "Only schools whose region is exactly this." }) },
    extensions: sqlForm({
      kind: "page",
      model: "University",
      cursor: "id",
      orderBy: [{ field: "id" }],
      defaultSize: PAGE.long,
      maxSize: PAGE.long,
      list: (args, { row, param }, _limit, after) => {
        if (after !== undefined && !Number.isInteger(after)) return undefined;
        const region = present(args.region as string | null | undefined);
        const value = region === undefined ? undefined : param(region, "text");
        const where = (school: string) => (value === undefined ? [] : [`${school}.region = ${value}`]);
        if (after === undefined) return { from: `university ${row}`, where: where(row) };
        // The rows after the cursor's, when the list holds it (Prisma pages no other cursor so).
        const cursor = param(after, "int");
        return {
          from: `university ${row}`,
          where: where(row),
          page: [`${row}.id > ${cursor}`],
          holds: `EXISTS (SELECT FROM university c WHERE ${[`c.id = ${cursor}`, ...where("c")].join(" AND ")})`,
        };
      },
    }),
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.university.findMany({ ...query, where: regionWhere(args.region), orderBy: { id: "asc" } }),
    totalCount: (_conn, args, ctx) => ctx.prisma.university.count({ where: regionWhere(args.region) }),
  }),
  university: t.prismaField({
    type: "University",
    nullable: true,
    description: "One university by numeric id or code (case-insensitive); null when there is none.",
    args: { ref: t.arg.string({ required: true, description: "Numeric school id, or school code in any case." }) },
    resolve: (query, _root, args, ctx) => ctx.prisma.university.findUnique({ ...query, where: schoolRefWhere(args.ref) }),
  }),
}));

function regionWhere(region: string | null | undefined) {
  const value = present(region);
  return value === undefined ? {} : { region: value };
}
