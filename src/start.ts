/**
 * The gateway, as `npm start` starts it (src/main.ts). With WEB_CONCURRENCY above 1,
 * this process becomes the primary of that many workers (src/cluster.ts),
 * each of which runs this file again and serves; otherwise it serves itself
 * (src/serve.ts). Its command line was read by src/main.ts, before any of
 * this was loaded.
 */
import cluster from "node:cluster";
import { runPrimary } from "./cluster.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { primaryAmong } from "./db/replicas.js";
import { DatabaseStartError } from "./db/start-failures.js";
import { databaseAddress } from "./db/urls.js";
import { createLogger } from "./logger.js";
import { readTrustedDocuments, type TrustedDocuments } from "./plugins/persisted-documents.js";
import { schema } from "./schema/index.js";
import { serve } from "./serve.js";

let config: Config;
let trusted: TrustedDocuments | undefined;
try {
  config = loadConfig();
  // Read here, before any worker is forked: a bad file stops the start once.
  trusted = config.trustedDocuments === undefined ? undefined : readTrustedDocuments(config.trustedDocuments, schema);
  // A replica that is the primary under another name is found by asking both, before anything is written.
  const self = config.databaseUrl ? await primaryAmong(config.databaseUrl, config.replicaUrls) : undefined;
  if (self !== undefined) {
    throw new ConfigError(
      `invalid configuration: DATABASE_REPLICA_URLS names the primary itself (replica ${self + 1}, ${databaseAddress(config.replicaUrls[self]!)}, is the server of DATABASE_URL, not in recovery): list only its streaming replicas`,
    );
  }
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`npm start: ${error.message}\n`);
  process.exit(2);
}
const log = createLogger(config.logLevel);

// A database that cannot be used (a wrong password, a missing grant…) is said in one line, exit 1.
await (cluster.isPrimary && config.webConcurrency > 1 ? runPrimary(config, log) : serve(config, log, { trusted })).catch(
  (error: unknown) => {
    if (!(error instanceof DatabaseStartError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(1);
  },
);
