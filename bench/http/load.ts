/** How a bench drives one case against one server: the request wrk repeats, a single answer, and a persisted document's registration. */
import { request as httpRequest } from "node:http";
import type { Case } from "./cases.js";
import type { Load } from "./wrk.js";

/** The request of case `c` against the server at `base`, with the bench's key when given. */
export const loadOf = (base: string, c: Case, key?: string): Load => ({
  url: `${base}${c.path}`,
  method: c.method,
  headers: {
    ...(key ? { Authorization: `Bearer ${key}` } : {}),
    ...(c.method === "POST" ? { "Content-Type": "application/json", Accept: "application/json, text/event-stream" } : {}),
    ...c.headers,
  },
  ...(c.body === undefined ? {} : { body: c.body }),
});

/** The peer's request for case `c` (its `peer` body, to PostGraphile's `/graphql` at `base`; it takes no key). */
export const peerLoadOf = (base: string, c: Case): Load => ({
  url: `${base}/graphql`,
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json" },
  body: c.peer!,
});

/** Sends a persisted document's registration over a connection of its own; it must be answered 200. */
export function register(base: string, body: string, key: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const request = httpRequest(`${base}/graphql`, { method: "POST", headers, agent: false }, (response) => {
      response.resume();
      response.on("end", () => (response.statusCode === 200 ? resolve() : reject(new Error(`registration: ${response.statusCode}`))));
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** One answer to a load, whole. */
export async function answer(load: Load): Promise<{ status: number; text: string }> {
  const response = await fetch(load.url, {
    method: load.method ?? "GET",
    headers: load.headers ?? {},
    ...(load.body === undefined ? {} : { body: load.body }),
  });
  return { status: response.status, text: await response.text() };
}
