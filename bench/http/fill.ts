/**
 * Fills one embedded (PGlite) database for `npm run bench`, in a process of
 * its own: PGlite holds the thread it runs on, so filled in the bench's own
 * process it would stall the PostgreSQL datasets filling at the same time.
 *
 *   node --import tsx bench/http/fill.ts DIR DATASET NOW
 *
 * The last line of standard output is the key and ids, as JSON.
 */
import { openDatabase } from "../../src/db/driver.js";
import { type DatasetName, fillDatabase } from "./datasets.js";

const [dir, dataset, now] = process.argv.slice(2);
if (!dir || !dataset || !now) {
  process.stderr.write("usage: node --import tsx bench/http/fill.ts DIR DATASET NOW\n");
  process.exit(2);
}
const db = await openDatabase({ dataDir: dir });
try {
  process.stdout.write(`${JSON.stringify(await fillDatabase(db, dataset as DatasetName, new Date(now)))}\n`);
} finally {
  await db.close();
}
