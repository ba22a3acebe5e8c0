/**
 * A gateway on a real loopback socket (the server `npm start` runs), for the tests in which Node's HTTP
 * parser is part of what is tested: raw request targets (`fetch` would
 * normalise `%2e%2e` or an absolute-form target before sending), bytes that
 * no client library sends, and many requests at once.
 */
import type { Server } from "node:http";
import { connect } from "node:net";
import { createHttpServer } from "../../src/http.js";
import type { Gateway } from "../../src/server.js";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ListeningGateway {
  base: string;
  port: number;
  server: Server;
  /** Sends `request` byte for byte and reads the answer (the connection is closed after it). */
  raw(request: string | Buffer, timeoutMs?: number): Promise<RawAnswer>;
  close(): Promise<void>;
}

/** Parses one HTTP/1.1 response (Content-Length or chunked, or to the end). */
export function parseResponse(bytes: Buffer): RawAnswer {
  const text = bytes.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no complete response head: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (headers["transfer-encoding"] === "chunked") {
    const parts: Buffer[] = [];
    let rest = body;
    for (;;) {
      const lineEnd = rest.indexOf("\r\n");
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString("latin1"), 16);
      if (!size) break;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(parts);
  } else if (headers["content-length"] !== undefined) {
    body = body.subarray(0, Number(headers["content-length"]));
  }
  return { status, headers, body: body.toString("utf8") };
}

export async function listen(gateway: Gateway): Promise<ListeningGateway> {
  const server = createHttpServer(gateway, { first: gateway.lean });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    server,
    raw(request, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port });
        const chunks: Buffer[] = [];
        socket.setTimeout(timeoutMs, () => {
          socket.destroy();
          reject(new Error(`no complete answer within ${timeoutMs} ms`));
        });
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("error", reject);
        socket.on("close", () => {
          try {
            resolve(parseResponse(Buffer.concat(chunks)));
          } catch (error) {
            reject(error);
          }
        });
        socket.write(request);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
