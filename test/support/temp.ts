/**
 * Temporary directories for tests that give a DATA_DIR to a gateway or a
 * command. mkdtemp makes a directory only its owner may enter; as root, the
 * embedded PostgreSQL runs as an unprivileged user (src/db/postgres-programs.ts)
 * who must reach the DATA_DIR inside it, so these may be entered by anyone
 * (not listed: 0711).
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRunning } from "../../src/db/postgres-programs.js";

/** A new directory in the system's temporary one, named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o711);
  return dir;
}

/**
 * The path of this run's own folder in `parent`, `<prefix><pid>`, after
 * removing those of the same prefix whose process is gone (what a killed run
 * left behind). Makes nothing.
 */
export function runFolder(parent: string, prefix: string): string {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && !isRunning(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
  return join(parent, `${prefix}${process.pid}`);
}
