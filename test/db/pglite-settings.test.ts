/** The embedded database runs with small memory settings (src/db/driver.ts), not a server's defaults. */
import { expect, it } from "vitest";
import { openDatabase } from "../../src/db/driver.js";

it("PGlite's shared buffers are 16 MB and its maintenance memory 16 MB", async () => {
  const db = await openDatabase({ dataDir: "memory://" });
  try {
    const [row] = await db.query<{ shared_buffers: string; maintenance_work_mem: string }>(
      "SELECT current_setting('shared_buffers') AS shared_buffers, current_setting('maintenance_work_mem') AS maintenance_work_mem",
    );
    expect(row).toEqual({ shared_buffers: "16MB", maintenance_work_mem: "16MB" });
  } finally {
    await db.close();
  }
});
