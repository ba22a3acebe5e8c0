/**
 * `npm start`: open the database (embedded PGlite unless DATABASE_URL is set),
 * apply pending migrations, import the demo data into an empty database, and
 * serve the gateway.
 */
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { loadConfig } from "./config.js";
import { createReadClient } from "./db/client.js";
import { openDatabase } from "./db/driver.js";
import { migrate } from "./db/migrate.js";
import { demoExportChunks } from "./demo/index.js";
import { importExport } from "./import/apply.js";
import { createLogger } from "./logger.js";
import { createGateway } from "./server.js";

const config = loadConfig();
const log = createLogger(config.logLevel);
const db = await openDatabase(config);
const applied = await migrate(db);
if (applied.length) log.info({ applied }, "applied migrations");

const [{ count }] = (await db.query<{ count: string }>("SELECT count(*)::text AS count FROM university")) as [{ count: string }];
if (count === "0") {
  log.info("the database holds no university: importing the demo data");
  const started = Date.now();
  const summary = await importExport(db, Readable.from(demoExportChunks()));
  log.info({ ...summary, ms: Date.now() - started }, "imported the demo data");
}

const prisma = createReadClient(db);
const gateway = createGateway({ db, prisma, log });
const server = createServer(gateway);
server.listen(config.port, config.host, () => {
  const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  console.log(`GraphiQL:  ${base}/graphql`);
  console.log(`REST root: ${base}/api/v1`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    void prisma.$disconnect().finally(() => db.close());
  });
}
