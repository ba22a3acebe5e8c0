/**
 * `npm start`: its command line is read first, so that `--help` or a wrong
 * option is answered before the gateway's modules are loaded (over a second
 * of CPU). With OpenTelemetry asked for (OTEL_EXPORTER_OTLP_ENDPOINT), its
 * SDK starts next, so that it can instrument the modules the gateway then
 * imports (src/observe/tracing.ts); without it, nothing of it is loaded.
 * Then the gateway starts (src/start.ts).
 *
 * On Node 22.1 and later, V8's compiled code of the modules it loads from
 * here on is kept on disk and reused by the next start (Node's module compile
 * cache, in os.tmpdir()/node-compile-cache unless NODE_COMPILE_CACHE names
 * another folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off): 13% of a
 * start's CPU on Node 24. Each WEB_CONCURRENCY worker runs this file too.
 * Node 20 has no such cache.
 */
import nodeModule from "node:module";
import { commandLine } from "./cli/args.js";
import { startTracing } from "./observe/tracing.js";

commandLine({
  name: "start",
  usage: `usage: npm start

Serves the gateway: /graphql, /api/v1, /mcp, /metrics. It opens the database
(a PostgreSQL server of its own in DATA_DIR unless DATABASE_URL is set),
applies pending migrations and, into an empty database, imports the demo data.
With WEB_CONCURRENCY=N, N worker processes share the port. It is configured by
environment variables only; the README lists them.`,
  options: {},
});

// Never fails: a folder it cannot write only leaves the cache off (its status says why).
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await startTracing("uedu-gateway");
await import("./start.js");
