/**
 * `useRequestShare`: each GraphQL execution is one request to the read client
 * (`asOneRequest`), so it has at most a few statements in flight and cannot
 * make every other request wait behind its own queue. REST and MCP operations
 * are executed by `rest/api.ts`, which does the same.
 */
import type { Plugin } from "graphql-yoga";
import { asOneRequest, STATEMENTS_PER_REQUEST } from "../db/client.js";

export interface RequestShareOptions {
  /** Statements one execution may have in flight at once. Default `STATEMENTS_PER_REQUEST` (3). */
  inFlight?: number;
}

export function useRequestShare(options: RequestShareOptions = {}): Plugin {
  const inFlight = options.inFlight ?? STATEMENTS_PER_REQUEST;
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => asOneRequest(() => executeFn(args), inFlight));
    },
  };
}
