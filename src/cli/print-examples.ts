/**
 * Writes rest/examples.json from the demo data (`npm run openapi:examples`),
 * imported into an embedded PostgreSQL of its own in a temporary DATA_DIR;
 * then `npm run openapi:print`.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandLine } from "./args.js";
import { EXAMPLES_FILE } from "../../rest/example-file.js";

commandLine({
  name: "openapi:examples",
  usage: `usage: npm run openapi:examples\n\nWrites an example answer of each REST operation, from the demo data, to ${EXAMPLES_FILE}.`,
  options: {},
});

// Loaded once the command line is read: --help and a wrong option answer without them.
const { openDatabase } = await import("../db/driver.js");
const { migrate } = await import("../db/migrate.js");
const { collectExamples } = await import("./rest-examples.js");

const dir = mkdtempSync(join(tmpdir(), "openapi-examples-"));
// As root, the embedded server runs as an unprivileged user, who must reach DATA_DIR.
chmodSync(dir, 0o711);
try {
  const db = await openDatabase({ dataDir: join(dir, "data"), role: "openapi:examples" });
  try {
    await migrate(db);
    writeFileSync(EXAMPLES_FILE, `${JSON.stringify(await collectExamples(db), null, 2)}\n`);
  } finally {
    await db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`wrote ${EXAMPLES_FILE}`);
