/**
 * Listening on the configured address, where a refusal (a port in use, an
 * address that is not this machine's) is the commonest first-start error: it
 * becomes one line that names the setting and what to do, instead of Node's
 * unhandled `'error'` event and its stack.
 */
import type { Server } from "node:net";

/** A server could not listen: the message names the setting and what to do, on one line. */
export class ListenError extends Error {}

/** The address to listen on, and the names of the settings it comes from (PORT or METRICS_PORT, HOST). */
export interface ListenAddress {
  port: number;
  host: string;
  /** The variable that set `port`. */
  portSetting: "PORT" | "METRICS_PORT";
}

/** The one line for a refusal to listen on `address`. */
function listenFailure(error: NodeJS.ErrnoException, { port, host, portSetting }: ListenAddress): string {
  switch (error.code) {
    case "EADDRINUSE":
      return `${portSetting} ${port} on ${host} is in use by another program: stop that program, or set ${portSetting} to a free port`;
    case "EACCES":
      return `${portSetting} ${port} on ${host} needs privileges this user does not have: set ${portSetting} to 1024 or above`;
    case "EADDRNOTAVAIL":
      return `HOST ${host} is not an address of this machine: set HOST to one of its addresses (default 127.0.0.1)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `HOST ${host} is not a name this machine can resolve: set HOST to an address (default 127.0.0.1)`;
    default:
      return `cannot listen on ${host} port ${port} (HOST, ${portSetting}): ${error.code ?? "error"}: ${error.message}`;
  }
}

/** Listens; resolves once listening, rejects with a {@link ListenError} if the system refuses. */
export function listen(server: Server, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => {
      server.off("listening", listening);
      reject(new ListenError(listenFailure(error, address)));
    };
    const listening = () => {
      server.off("error", refused);
      resolve();
    };
    server.once("error", refused);
    server.once("listening", listening);
    server.listen(address.port, address.host);
  });
}
