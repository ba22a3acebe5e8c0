/**
 * GraphQL's side of dependency failures (see `src/db/availability.ts`):
 *
 * - `maskUnavailable`: yoga's error masking, except that a database that could
 *   not answer becomes `SERVICE_UNAVAILABLE` with HTTP 503 and `Retry-After`,
 *   not "Unexpected error." with 200.
 * - `useExecutionDeadline`: no execution waits longer than the request time
 *   limit; past it the answer is that same error.
 */
import { GraphQLError } from "graphql";
import { type MaskError, maskError, type Plugin } from "graphql-yoga";
import { isUnavailable, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE, withDeadline } from "../db/availability.js";

/** The GraphQL error for a database that could not answer in time. */
function unavailableError(): GraphQLError {
  return new GraphQLError(UNAVAILABLE_MESSAGE, {
    extensions: {
      code: "SERVICE_UNAVAILABLE",
      http: { status: 503, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } },
    },
  });
}

export const maskUnavailable: MaskError = (error, message, isDev) =>
  isUnavailable(error) ? unavailableError() : maskError(error, message, isDev);

export interface ExecutionDeadlineOptions {
  /** Longest one execution may take, in milliseconds. */
  ms: number;
}

export function useExecutionDeadline(options: ExecutionDeadlineOptions): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (args) => {
        try {
          return await withDeadline(Promise.resolve(executeFn(args)), options.ms, "GraphQL execution");
        } catch (error) {
          if (isUnavailable(error)) return { errors: [unavailableError()] };
          throw error;
        }
      });
    },
  };
}
