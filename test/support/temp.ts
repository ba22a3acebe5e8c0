/**
 * Temporary directories for tests that give a DATA_DIR to a gateway or a
 * command. mkdtemp makes a directory only its owner may enter; as root, the
 * embedded PostgreSQL runs as an unprivileged user (src/db/postgres-programs.ts)
 * who must reach the DATA_DIR inside it, so these may be entered by anyone
 * (not listed: 0711).
 */
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A new directory in the system's temporary one, named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o711);
  return dir;
}
