/**
 * `npm run import -- <file|->`: imports a platform export (CONTRACT §6) into
 * the configured database, migrating it first. Exit 0 on success, 1 when the
 * export is refused or unreadable (nothing changed), 2 on a usage error.
 */
import { importExport, type ImportSummary } from "../import/apply.js";
import { openInput, openMigrated, run } from "./open.js";

const USAGE = "usage: npm run import -- <export.json | ->  (- reads standard input)";
const n = (value: number) => value.toLocaleString("en-US");

function summary(s: ImportSummary): string {
  return (
    `imported ${n(s.universities)} universities, ${n(s.courses)} courses, ${n(s.papers)} papers, ` +
    `${n(s.conferences)} conferences, ${n(s.hubPacks)} hub packs (${n(s.packVersions)} versions), ` +
    `${n(s.stations)} stations, ${n(s.observations)} observations`
  );
}

run("import failed", async () => {
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0] === "" || args[0] === "--help" || args[0] === "-h") {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const { input, readError } = await openInput(args[0]!);
  const { db, applied } = await openMigrated();
  for (const name of applied) process.stderr.write(`applied migration ${name}\n`);
  const tty = process.stderr.isTTY === true;
  let result: ImportSummary;
  try {
    result = await importExport(db, input, {
      onProgress: tty ? (p) => process.stderr.write(`\r${p.section}: ${n(p.records)}\x1b[K`) : undefined,
    }).catch((error: unknown) => {
      throw readError() ?? error;
    });
  } finally {
    if (tty) process.stderr.write("\r\x1b[K");
    input.destroy();
    await db.close();
  }
  console.log(summary(result));
  return 0;
});
