/** The `Date` and `DateTime` scalars, in the formats of docs/contract.md §2. */
import { GraphQLError } from "graphql";
import { builder } from "./builder.js";
import { jsonSchema } from "./json-schema.js";

/** The text of each day already written, by its time value: a list repeats the same few dates (semesters' first days). */
const days = new Map<number, string>();
/** Most days remembered; past it the memory starts again. */
const DAYS_KEPT = 4_096;

/** `YYYY-MM-DD` of a date column (stored at UTC midnight) or a local-date string. */
export function formatDate(value: Date | string): string {
  if (typeof value === "string") return value;
  const time = value.getTime();
  let text = days.get(time);
  if (text === undefined) {
    text = value.toISOString().slice(0, 10);
    if (days.size >= DAYS_KEPT) days.clear();
    days.set(time, text);
  }
  return text;
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
