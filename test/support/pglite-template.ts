/**
 * One migrated embedded database for the whole run, made by the global setup.
 *
 * Creating an embedded database runs initdb and every migration inside
 * WebAssembly: about 2.3 s in memory and 5 s on disk, each time, on this
 * project's 2-core machines. A test that needs an empty, migrated database,
 * and is not testing how one is created, starts from this template instead:
 * a memory database loaded from its dump (about 0.8 s), or a DATA_DIR copied
 * from its directory (a file copy). The tests of a fresh start (an empty
 * DATA_DIR, `npm start` on a new machine, `db:migrate`) do not use it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPGlite } from "../../src/db/driver.js";
import { migrate } from "../../src/db/migrate.js";

/** Where the run's template is: a closed DATA_DIR and its dump. */
export interface PGliteTemplate {
  /** A migrated DATA_DIR, closed cleanly; copy it, never open it. */
  dataDir: string;
  /** The same database as PGlite's gzipped dump (`loadDataDir`). */
  dump: string;
}

/** Makes the template in a new temporary directory; `remove` deletes it. */
export async function makePGliteTemplate(): Promise<PGliteTemplate & { remove(): void }> {
  const root = mkdtempSync(join(tmpdir(), "pglite-template-"));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    const dataDir = join(root, "data");
    const dump = join(root, "migrated.tar.gz");
    const db = await openPGlite(dataDir);
    try {
      await migrate(db);
      writeFileSync(dump, Buffer.from(await (await db.dump!()).arrayBuffer()));
    } finally {
      await db.close();
    }
    return { dataDir, dump, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The template's dump, read once per test file. */
let dumpBytes: Uint8Array<ArrayBuffer> | undefined;
export function templateDump(template: PGliteTemplate): Blob {
  dumpBytes ??= new Uint8Array(readFileSync(template.dump));
  return new Blob([dumpBytes]);
}

/** Puts a copy of the template at `dataDir` (which must not exist yet), for a command or gateway to open. */
export function copyTemplate(template: PGliteTemplate, dataDir: string): string {
  cpSync(template.dataDir, dataDir, { recursive: true, errorOnExist: true, force: false });
  return dataDir;
}
