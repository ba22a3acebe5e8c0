/**
 * `npm start`: with OpenTelemetry asked for (OTEL_EXPORTER_OTLP_ENDPOINT),
 * its SDK starts first, so that it can instrument the modules the gateway
 * then imports (src/observe/tracing.ts); without it, nothing of it is
 * loaded. Then the gateway starts (src/start.ts).
 */
import { startTracing } from "./observe/tracing.js";

await startTracing("uedu-gateway");
await import("./start.js");
