/**
 * An OTLP/HTTP receiver for the tracing tests: it accepts what the
 * OpenTelemetry SDK's own exporter sends to `/v1/traces` (OTLP's JSON
 * encoding, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), answers as a collector
 * does, and keeps both the raw bodies (to look for secrets in) and the spans,
 * decoded.
 */
import { createServer } from "node:http";

/** One span as it arrived. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

export interface OtlpReceiver {
  /** The endpoint to give OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body received, as text. */
  bodies: string[];
  /** Resolves once `done(spans)` holds, or rejects after `ms`. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

const decoded = (v: AnyValue): unknown =>
  v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.doubleValue ?? v.boolValue;
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, decoded(a.value)]));

export async function otlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      bodies.push(text);
      if (request.url === "/v1/traces") {
        const body = JSON.parse(text) as ExportRequest;
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)["service.name"]);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                scope: ss.scope?.name ?? "",
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                status: s.status?.code ?? 0,
              });
            }
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitFor(done, ms = 15_000) {
      const until = Date.now() + ms;
      while (!done(spans)) {
        if (Date.now() > until)
          throw new Error(`the spans wanted did not arrive within ${ms} ms; got: ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
