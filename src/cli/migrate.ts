/** `npm run db:migrate`: applies the pending migrations of the configured database. */
import { openMigrated, run } from "./open.js";

run("db:migrate failed", async () => {
  const { db, applied } = await openMigrated();
  await db.close();
  if (applied.length === 0) console.log("database is up to date");
  for (const name of applied) console.log(`applied ${name}`);
  return 0;
});
