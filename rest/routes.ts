/**
 * The v1 REST contract as a table: each GET path, its operation document,
 * its parameters and its envelope. Adding an operation means adding a
 * document under graphql/operations and a row here.
 */
import { AssetType, EducationLevel } from "../src/generated/prisma/enums.js";
import { INT32_MAX } from "../src/input-limits.js";
import type { Envelope } from "./envelope.js";
import { integer, oneOf, type ParamRules, type ParamValues, text } from "./params.js";

/** A path parameter: an integer that is not one is simply not found (404). */
export type PathParam = "integer" | "string";

export interface Route<Q extends ParamRules = ParamRules, P extends Record<string, PathParam> = Record<string, PathParam>> {
  /** The path, written as in OpenAPI: `/api/v1/courses/{course_id}`. */
  path: string;
  /** One-line description (root listing and OpenAPI summary). */
  description: string;
  /** The name of the MCP tool that mirrors this route. */
  tool: string;
  /** The document name under graphql/operations. */
  operation: string;
  envelope: Envelope;
  pathParams: P;
  query: Q;
  /**
   * Set once the route is on its way out (and listed in CHANGELOG.md): its
   * answers carry `Deprecation` (RFC 9745) and `Sunset` (RFC 8594), the
   * OpenAPI document marks it `deprecated`, and its MCP tool's description
   * says so first. Dates are `YYYY-MM-DD`, UTC.
   */
  deprecated?: { since: string; sunset: string };
  /** GraphQL variables from the validated parameters. */
  variables(params: ParamValues<Q> & { [K in keyof P]: P[K] extends "integer" ? number : string }): Record<string, unknown>;
}

/** What a deprecated route's OpenAPI operation and MCP tool say first; undefined for the others. */
export const deprecationNote = (route: Route): string | undefined =>
  route.deprecated && `Deprecated since ${route.deprecated.since}, and removed after ${route.deprecated.sunset}.`;

/** Identity with inference, so each row's `variables` sees its own parameter types. */
function route<Q extends ParamRules, P extends Record<string, PathParam>>(r: Route<Q, P>): Route {
  return r as unknown as Route;
}

/** What each path parameter is, wherever it is described (OpenAPI, MCP). */
export const PATH_PARAM_DESCRIPTIONS: Readonly<Record<string, string>> = {
  course_id: "Numeric course id. An id that is not an integer, or not of a public course, is not found (404).",
  school_ref: "Numeric school id, or school code (case-insensitive).",
  pack_id: "The Pack's id. A Pack that is not public and safety-checked is not found (404).",
};

const university = text("School code (case-insensitive) or exact Chinese name.");

export const ROUTES: readonly Route[] = [
  route({
    path: "/api/v1/universities",
    tool: "list_universities",
    description: "List universities, optionally of one region.",
    operation: "universities",
    envelope: "list",
    pathParams: {},
    query: { region: text("Only schools whose region is exactly this.") },
    variables: (p) => ({ region: p.region }),
  }),
  route({
    path: "/api/v1/courses",
    tool: "list_courses",
    description: "Page through public courses, newest semester first.",
    operation: "courses",
    envelope: "paged",
    pathParams: {},
    query: {
      university,
      semester: text("Exact semester, like 113-1."),
      q: text("Case-insensitive substring of the Chinese or English course title."),
      page: integer("Page number.", { min: 1, max: INT32_MAX, default: 1 }),
      page_size: integer("Courses per page.", { min: 1, max: 100, default: 20 }),
    },
    variables: (p) => ({ university: p.university, semester: p.semester, q: p.q, page: p.page, pageSize: p.page_size }),
  }),
  route({
    path: "/api/v1/courses/{course_id}",
    tool: "get_course",
    description: "One public course with its details.",
    operation: "course",
    envelope: "object",
    pathParams: { course_id: "integer" },
    query: {},
    variables: (p) => ({ id: p.course_id }),
  }),
  route({
    path: "/api/v1/course_stats",
    tool: "get_course_stats",
    description: "Public course and instructor counts by semester, year or school.",
    operation: "course_stats",
    envelope: "list",
    pathParams: {},
    query: { university, group_by: oneOf("Grouping of the rows.", ["semester", "year", "school"], "semester") },
    variables: (p) => ({ university: p.university, groupBy: p.group_by }),
  }),
  route({
    path: "/api/v1/papers",
    tool: "list_papers",
    description: "The team's papers, newest first.",
    operation: "papers",
    envelope: "list",
    pathParams: {},
    query: {
      category: text("Only this category (exact)."),
      year: integer("Only this year.", { min: 1, max: 9999 }),
    },
    variables: (p) => ({ category: p.category, year: p.year }),
  }),
  route({
    path: "/api/v1/conferences",
    tool: "list_conferences",
    description: "Conferences, each with the team's relationship and paper count.",
    operation: "conferences",
    envelope: "list",
    pathParams: {},
    query: {},
    variables: () => ({}),
  }),
  route({
    path: "/api/v1/environment/schools/{school_ref}",
    tool: "get_school_environment",
    description: "Latest environment snapshot of one school (numeric id or code).",
    operation: "environment_school",
    envelope: "object",
    pathParams: { school_ref: "string" },
    query: {},
    variables: (p) => ({ ref: p.school_ref }),
  }),
  route({
    path: "/api/v1/environment/schools/{school_ref}/history",
    tool: "get_school_environment_history",
    description: "Daily environment summaries of one school.",
    operation: "environment_history",
    envelope: "object",
    pathParams: { school_ref: "string" },
    query: { days: integer("How many local dates, ending today.", { min: 1, max: 90, default: 30 }) },
    variables: (p) => ({ ref: p.school_ref, days: p.days }),
  }),
  route({
    path: "/api/v1/environment/snapshot",
    tool: "get_environment_snapshot",
    description: "Latest environment snapshots of several schools.",
    operation: "environment_snapshot",
    envelope: "list",
    pathParams: {},
    query: {
      region: text("Only schools whose region is exactly this."),
      limit: integer("Maximum number of schools.", { min: 1, max: 100, default: 30 }),
    },
    variables: (p) => ({ region: p.region, limit: p.limit }),
  }),
  route({
    path: "/api/v1/hub/packs",
    tool: "list_hub_packs",
    description: "Public, safety-checked hub Packs.",
    operation: "hub_packs",
    envelope: "list",
    pathParams: {},
    query: {
      q: text("Case-insensitive substring of the name, summary or subject."),
      asset_type: oneOf("Only this asset type.", Object.values(AssetType)),
      education_level: oneOf("Only this education level.", Object.values(EducationLevel)),
      sort: oneOf("Order of the list.", ["recent", "stars", "installs"], "recent"),
      limit: integer("Maximum number of items.", { min: 1, max: 100, default: 30 }),
    },
    variables: (p) => ({ q: p.q, assetType: p.asset_type, educationLevel: p.education_level, sort: p.sort, limit: p.limit }),
  }),
  route({
    path: "/api/v1/hub/packs/{pack_id}",
    tool: "get_hub_pack",
    description: "One public Pack with its safety-checked versions.",
    operation: "hub_pack",
    envelope: "object",
    pathParams: { pack_id: "string" },
    query: {},
    variables: (p) => ({ id: p.pack_id }),
  }),
];
