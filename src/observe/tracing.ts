/**
 * OpenTelemetry traces, exported by the OpenTelemetry JS SDK (`NodeSDK`) when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is
 * set, configured by the standard `OTEL_*` variables (protocol, headers,
 * service name, sampler, batch delays). Unset, nothing of OpenTelemetry is
 * loaded: this module imports it only in {@link startTracing}, and every
 * helper below is then a plain call of the work it wraps.
 *
 * What a trace holds:
 * - one per request, on every surface: the HTTP server span (instrumentation-http;
 *   an incoming `traceparent` is honoured), named by method and route; the
 *   GraphQL operation (src/plugins/tracing.ts, and rest/api.ts for the fixed
 *   operations of REST and MCP); the SQL statements (instrumentation-pg, which
 *   also sees Prisma's, made through the pg driver adapter); and Redis calls
 *   (instrumentation-ioredis);
 * - one per import or ingest, with a span for each of its phases.
 *
 * The SDK's own trouble (an export that failed) is written to the process
 * log at warn; it never ends the process, and a stop waits at most 2 s for
 * the spans not yet sent.
 *
 * Nothing secret goes into a span: URLs are recorded without their query
 * (a sign-in link's token is one), no header is recorded (so no
 * `Authorization` or cookie), SQL statements without their values, and Redis
 * calls by command name only.
 */
import type * as Api from "@opentelemetry/api";

/** The OpenTelemetry API, once tracing has started. */
let api: typeof Api | undefined;
/** Flushes the spans not yet exported and stops the SDK. */
let shutdown: (() => Promise<void>) | undefined;

/** Whether traces are being recorded (startTracing ran in this process). */
export const tracingOn = (): boolean => api !== undefined;

/** Whether the environment asks for traces. */
function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && env.OTEL_SDK_DISABLED !== "true";
}

/**
 * Starts the SDK when the environment asks for traces; does nothing
 * otherwise. It must run before the modules it instruments (`pg`,
 * `ioredis`, `node:http`) are imported: an entry point calls it first, then
 * imports the rest of the program.
 */
export async function startTracing(serviceName: string): Promise<void> {
  if (!tracingWanted() || api) return;
  // The SDK's own metrics and logs stay off unless asked for: the gateway's metrics are at /metrics.
  process.env.OTEL_METRICS_EXPORTER ??= "none";
  process.env.OTEL_LOGS_EXPORTER ??= "none";
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  // ES modules are instrumented through import-in-the-middle's loader hook, told which modules to wrap.
  const { register } = await import("node:module");
  const { createAddHookMessageChannel } = await import("import-in-the-middle");
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);

  const [otel, { NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }, { IORedisInstrumentation }] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-pg"),
    import("@opentelemetry/instrumentation-ioredis"),
  ]);
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        // Only what a request to the gateway is: its own exporter's calls are not traced.
        ignoreOutgoingRequestHook: () => true,
        // The path is kept (url.path); the query is not: a sign-in link's token, OAuth's code, a search.
        startIncomingSpanHook: () => ({ "url.query": undefined }),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  // The SDK's own trouble (an export that failed: the collector refused, timed out) in the process log, at warn.
  const [{ VARIABLES }, { createLogger }] = await Promise.all([import("../config.js"), import("../logger.js")]);
  const log = createLogger(VARIABLES.LOG_LEVEL.schema.safeParse(process.env.LOG_LEVEL).data ?? "info");
  // The SDK hands an error over as JSON with its stack: the log line keeps its message.
  const readable = (message: string) => {
    try {
      const error = JSON.parse(message) as { message?: unknown };
      return typeof error.message === "string" ? error.message : message;
    } catch {
      return message;
    }
  };
  const warn = (message: string, ...args: unknown[]) =>
    log.warn(
      { detail: args.map((a) => (a instanceof Error ? a.message : String(a))).join("; ") || undefined },
      `OpenTelemetry: ${readable(message)}`,
    );
  otel.diag.setLogger({ error: warn, warn, info() {}, debug() {}, verbose() {} }, otel.DiagLogLevel.WARN);
  sdk.start();
  await waitForAllMessagesAcknowledged();
  api = otel;
  shutdown = () => sdk.shutdown();
}

/**
 * Exports the spans not yet sent and stops the SDK, giving up after `ms`: a
 * collector that cannot be reached does not hold up the end of a process
 * (its exporter would retry for seconds). Nothing without tracing.
 */
export async function stopTracing(ms = 2_000): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  if (!stop) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([stop().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The trace id of the span in progress, for the access log; undefined without tracing. */
export function traceId(): string | undefined {
  const span = api?.trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/** Names the request's HTTP server span by its method and route (`GET /api/v1/courses/{id}`), as the access log does. */
export function nameRequestSpan(method: string, route: string): void {
  // The span may have ended already (the client went away): the SDK would warn of it, for nothing.
  const span = api?.trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute("http.route", route);
}

/** A span of work in progress: attributes may be added and it can fail; it ends by itself. */
export interface WorkSpan {
  rename(name: string): void;
  setAttributes(attributes: Record<string, string | number | boolean>): void;
  fail(message: string): void;
}

const NO_SPAN: WorkSpan = { rename() {}, setAttributes() {}, fail() {} };

/**
 * Runs `work` in a span named `name` (a child of the span in progress, or a
 * new trace), ended when it settles, and failed when it throws. Without
 * tracing, it runs `work` alone.
 */
export function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: WorkSpan) => Promise<T>,
): Promise<T> {
  if (!api) return work(NO_SPAN);
  const { SpanStatusCode } = api;
  return api.trace.getTracer("uedu-gateway").startActiveSpan(name, { attributes }, async (span) => {
    // A late hook (an operation's onExecuteDone after its span ended) changes nothing rather than making the SDK warn.
    const handle: WorkSpan = {
      rename: (next) => span.isRecording() && span.updateName(next),
      setAttributes: (more) => span.isRecording() && span.setAttributes(more),
      fail: (message) => span.isRecording() && span.setStatus({ code: SpanStatusCode.ERROR, message }),
    };
    try {
      return await work(handle);
    } catch (error) {
      handle.fail(error instanceof Error ? error.name : "error");
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Spans of a long task's phases, one after the other, under the span in progress. */
export interface PhaseSpans {
  /** Ends the phase in progress, if any, and starts `name`. */
  phase(name: string): void;
  /** Ends the phase in progress. */
  end(failed?: boolean): void;
}

/** Phase spans for a task (`import`, `ingest`); undefined without tracing. */
export function phaseSpans(task: string): PhaseSpans | undefined {
  if (!api) return undefined;
  const otel = api;
  const tracer = otel.trace.getTracer("uedu-gateway");
  const parent = otel.context.active();
  let current: Api.Span | undefined;
  const end = (failed = false) => {
    if (failed) current?.setStatus({ code: otel.SpanStatusCode.ERROR });
    current?.end();
    current = undefined;
  };
  return {
    phase(name) {
      end();
      current = tracer.startSpan(`${task} ${name}`, { attributes: { "task.phase": name } }, parent);
    },
    end,
  };
}
