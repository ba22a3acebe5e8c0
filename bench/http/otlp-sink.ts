/**
 * Where the traced gateway of the bench exports its spans: an OTLP/HTTP
 * endpoint that reads every export whole, answers as a collector does, and
 * drops it, counting the exports and their bytes (so the exporter does its
 * whole work, and the bench can say how much it sent).
 */
import { createServer } from "node:http";

export interface OtlpSink {
  /** The endpoint for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  exports: number;
  bytes: number;
  close(): void;
}

export async function otlpSink(): Promise<OtlpSink> {
  const server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => (sink.bytes += chunk.length));
    request.on("end", () => {
      sink.exports++;
      response.writeHead(200, { "content-type": request.headers["content-type"] ?? "application/json" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const sink: OtlpSink = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    exports: 0,
    bytes: 0,
    close: () => server.close(),
  };
  return sink;
}
