/**
 * The usage table (src/usage/recorder.ts) at the size the issue asks about:
 * 1,000 keys each using 50 coordinates a day, written as the gateway writes
 * them (one upsert per flush), for --days days, on a throwaway database.
 * Prints the time of a day's first flush (every row new) and of a flush of
 * the same rows again (every row an update: a busy day's later flushes), the
 * rows a second each is, the table's size with its indexes per row, and the
 * size at 400 days (the retention), extrapolated from it; then the time of
 * `npm run usage -- --deprecated`'s query and My API Keys' over the whole table.
 *
 *   npm run bench:usage                       # PostgreSQL at TEST_DATABASE_URL
 *   npm run bench:usage -- --days 10 --keys 100
 */
import { type CommandLine, commandLine, integerOption } from "../src/cli/args.js";
import { benchReport } from "./report.js";

const LINE = {
  name: "bench:usage",
  usage: `usage: npm run bench:usage -- [--days N] [--keys N] [--coordinates N] [--embedded]

Writes --keys (default 1,000) keys × --coordinates (default 50) coordinates a day
for --days (default 30) days into usage_day as the gateway does, and prints the
write times, rows per second and the table's size (and at 400 days).`,
  options: {
    days: { type: "string", default: "30" },
    keys: { type: "string", default: "1000" },
    coordinates: { type: "string", default: "50" },
    embedded: { type: "boolean", default: false },
  },
} satisfies CommandLine;
const { values } = commandLine(LINE);
const days = integerOption(LINE, "days", values.days, 1);
const keys = integerOption(LINE, "keys", values.keys, 1);
const coordinates = integerOption(LINE, "coordinates", values.coordinates, 1);

const { migrate } = await import("../src/db/migrate.js");
const { UsageRecorder } = await import("../src/usage/recorder.js");
const { coordinatesUsed, keyUsages } = await import("../src/usage/report.js");
const { serviceDeprecations } = await import("../src/usage/deprecated.js");
const { benchDatabase } = await import("./database.js");

const report = benchReport("bench:usage");
const db = await benchDatabase(values.embedded);
try {
  await migrate(db);
  // Coordinates as long as real ones (Query.courses(first:), University.environmentHistory(days:)).
  const names = Array.from({ length: coordinates }, (_, i) => `SomeType${i % 7}.someFieldName${i}(argument:)`);
  names[0] = "/graphql";
  names[1] = "EnvironmentDay.dateTaipei";
  let now = Date.parse("2026-01-01T12:00:00Z");
  const usage = new UsageRecorder({ db, now: () => now });
  const fill = () => {
    for (let key = 1; key <= keys; key++) usage.record(key, names);
  };
  const timed = async () => {
    const started = performance.now();
    await usage.flush();
    return performance.now() - started;
  };
  const inserts: number[] = [];
  const updates: number[] = [];
  report.progress.phase("writing", { total: days, unit: "steps" });
  for (let day = 0; day < days; day++) {
    fill();
    inserts.push(await timed());
    fill();
    updates.push(await timed());
    now += 86_400_000;
    report.progress.set(day + 1);
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const rowsPerFlush = keys * coordinates;
  const [size] = await db.query<{ table: string; indexes: string; rows: string }>(
    `SELECT pg_table_size('usage_day')::text AS table, pg_indexes_size('usage_day')::text AS indexes, (SELECT count(*) FROM usage_day)::text AS rows`,
  );
  const rows = Number(size!.rows);
  const bytes = Number(size!.table) + Number(size!.indexes);
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
  report.say(`${keys.toLocaleString("en-US")} keys × ${coordinates} coordinates a day, ${days} days: ${rows.toLocaleString("en-US")} rows`);
  report.say(
    `a day's first flush (${rowsPerFlush.toLocaleString("en-US")} new rows): median ${median(inserts).toFixed(0)} ms, ${Math.round(rowsPerFlush / (median(inserts) / 1000)).toLocaleString("en-US")} rows/s`,
  );
  report.say(
    `the same rows again (updates): median ${median(updates).toFixed(0)} ms, ${Math.round(rowsPerFlush / (median(updates) / 1000)).toLocaleString("en-US")} rows/s`,
  );
  report.say(
    `size: table ${mib(Number(size!.table))} + indexes ${mib(Number(size!.indexes))} = ${mib(bytes)}, ${Math.round(bytes / rows)} bytes a row`,
  );
  report.say(`at 400 days (the retention): about ${(((bytes / rows) * rowsPerFlush * 400) / 2 ** 30).toFixed(1)} GiB`);
  await db.exec("ANALYZE usage_day");
  const since = new Date(now - 30 * 86_400_000).toISOString().slice(0, 10);
  let started = performance.now();
  await coordinatesUsed(db, { since });
  report.say(`npm run usage's summary of the last 30 days: ${(performance.now() - started).toFixed(0)} ms`);
  started = performance.now();
  await keyUsages(db, [1, 2, 3, 4, 5], { days: 30, today: new Date(now), deprecated: serviceDeprecations() });
  report.say(`My API Keys' chart and deprecated uses of 5 keys: ${(performance.now() - started).toFixed(0)} ms`);
} finally {
  await db.close();
  await db.drop();
}
await report.finish();
