/**
 * `drain` (src/http.ts) on a real socket, with a handler that holds the event
 * loop as a gateway under load does: Node then accepts one queued connection
 * per turn, so the drain must keep its listener open until the queue is
 * empty. With the listener closed 50 ms after the signal, as before, most of
 * 30 queued connections were reset.
 */
import type { Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpServer, drain } from "../../src/http.js";
import { ending, opened } from "../support/signal-under-load.js";

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

async function listening(handler: Parameters<typeof createHttpServer>[0]): Promise<number> {
  server = createHttpServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

describe("drain", () => {
  it("answers every connection queued before it, though Node accepts one per turn of a busy loop", async () => {
    // Each request holds the loop for 15 ms, in a timer of its own, as an execution's synchronous parts do.
    const port = await listening((request, response) => {
      setTimeout(() => {
        busy(15);
        response.end(`answered ${request.url}`);
      }, 0);
    });
    const sockets = await Promise.all(Array.from({ length: 30 }, () => opened(port)));
    const endings = sockets.map(ending);
    for (const [i, socket] of sockets.entries()) socket.write(`GET /${i} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    // The loop is held while the requests arrive, so that most are still in the kernel's queue at the drain.
    busy(40);
    const drained = drain(server!, 10_000);
    const answers = await Promise.all(endings);
    expect(await drained).toBe(true);
    expect(answers.map((a) => a.error ?? a.answer?.status)).toEqual(answers.map(() => 200));
    expect(answers.map((a) => a.answer?.body)).toEqual(answers.map((_, i) => `answered /${i}`));
    // Each answer written during the drain closed its connection.
    expect(answers.filter((a) => a.answer?.headers.connection === "close").length).toBeGreaterThan(20);
    expect(server!.listening).toBe(false);
    await expect(opened(port)).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("cuts what is still in flight at its time limit, and says so", async () => {
    const port = await listening(() => undefined);
    const socket = await opened(port);
    const end = ending(socket);
    socket.write("GET /never HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    expect(await drain(server!, 500)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(await end).toMatchObject({ error: expect.any(String) });
  });
});
