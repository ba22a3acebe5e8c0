/** The `Date` and `DateTime` scalars, in the formats of docs/contract.md §2. */
import { GraphQLError } from "graphql";
import { builder } from "./builder.js";
import { jsonSchema } from "./json-schema.js";

/** `YYYY-MM-DD` of a date column (stored at UTC midnight) or a local-date string. */
function formatDate(value: Date | string): string {
  return typeof value === "string" ? value : value.toISOString().slice(0, 10);
}

/** ISO 8601 in UTC with `Z`, without a fraction when it is zero. */
function formatInstant(value: Date | string): string {
  const iso = (typeof value === "string" ? new Date(value) : value).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

builder.scalarType("Date", {
  description: "A calendar date, `YYYY-MM-DD`.",
  ...jsonSchema({ type: "string", format: "date" }),
  serialize: (value) => formatDate(value),
  parseValue: (value) => {
    if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) {
      throw new GraphQLError("Date must be a string YYYY-MM-DD");
    }
    return value;
  },
});

builder.scalarType("DateTime", {
  description: "An instant, ISO 8601 in UTC with `Z` (for example `2026-11-20T08:00:00Z`).",
  ...jsonSchema({ type: "string", format: "date-time" }),
  serialize: (value) => formatInstant(value),
  parseValue: (value) => {
    const date = typeof value === "string" ? new Date(value) : null;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError("DateTime must be an ISO 8601 string");
    return date;
  },
});
