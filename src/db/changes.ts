/**
 * The public data changed: every writer says so on one PostgreSQL channel,
 * inside its transaction, so the notice goes out when (and only if) the
 * change commits. Gateways listening on it (the response cache) hear it from
 * any process on a server, and in the process on the embedded database.
 */
import type { Database } from "./driver.js";

/** The NOTIFY channel. */
export const DATA_CHANGED = "uedu_data_changed";

/**
 * Announces, within the writer's transaction, that the data changed: the
 * data version goes up by one and the snapshots and school days computed
 * from the old data go (src/environment/stored.ts), all when the change
 * commits.
 */
export async function announceChange(tx: Pick<Database, "exec">): Promise<void> {
  await tx.exec(
    `UPDATE data_version SET version = version + 1, days_for = NULL; DELETE FROM school_snapshot; DELETE FROM school_day; NOTIFY ${DATA_CHANGED}`,
  );
}

/**
 * The NOTIFY channel of API key changes (a revocation, new limits): every
 * gateway's key cache forgets what it verified (src/keys/store.ts).
 */
export const KEYS_CHANGED = "uedu_keys_changed";
