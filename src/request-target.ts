/**
 * The request target, read as RFC 9112 §3.2 says, before anything routes on
 * it. The gateway's routes are paths, and the layers above Node (yoga's
 * server adapter, the lean path) build the request's URL from the Host
 * header and the target in origin form (`/path?query`). So:
 *
 * - origin form passes as it is;
 * - absolute form (`GET http://host/path HTTP/1.1`, §3.2.2) is read as its
 *   path and query, its authority taking the place of the Host header;
 * - the asterisk form (`OPTIONS *`) names no path of the service: 404, as
 *   any other unknown path (it is answered here: no URL can be built from it);
 * - anything else (the authority form outside CONNECT, a malformed URL, a
 *   scheme other than http and https), and a Host header that is not a
 *   plain `host[:port]`, cannot be read: the answer is a 400.
 */

/** A Host header (or an absolute target's authority) that names a host and nothing else. */
const PLAIN_HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+(?::\d{0,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{0,5})?$/;
/** An absolute-form target's start: a scheme and `//`. */
const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** What a client is told of a target that is no path (Node's parser refuses most of them itself). */
export const NOT_A_PATH =
  "malformed request target: expected a path, like /api/v1/universities, with every non-ASCII character percent-encoded";

export type ReadTarget = { target: string; host: string | undefined } | { status: 400 | 404; refused: string };

/**
 * The target in origin form (or `*`) and the host the request is for, or
 * why they cannot be read.
 */
export function readTarget(target: string, host: string | undefined): ReadTarget {
  if (host !== undefined && !plainHost(host)) return bad("malformed Host header: expected host[:port]");
  if (target.startsWith("/")) return { target, host };
  if (target === "*") return { status: 404, refused: "no such path: *" };
  if (!ABSOLUTE.test(target)) return bad(NOT_A_PATH);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return bad("malformed request target: not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return bad("malformed request target: only http and https URLs name a path here");
  }
  if (url.username || url.password || !plainHost(url.host)) return bad("malformed request target: its authority is not host[:port]");
  return { target: `${url.pathname}${url.search}`, host: url.host };
}

const bad = (refused: string): ReadTarget => ({ status: 400, refused });

/** The last host found plain: the next request of a client names the same, and building a URL for it was 1% of a list's CPU. */
let lastPlain: string | undefined;

/** Whether `host` is a plain `host[:port]`, which stays a host when a URL is built from it. */
function plainHost(host: string): boolean {
  if (host === lastPlain) return true;
  if (!PLAIN_HOST.test(host)) return false;
  try {
    // What the layers above will do with it: the host must stay a host.
    const url = new URL(`http://${host}/`);
    if (url.pathname !== "/" || url.search || url.hash || url.username) return false;
  } catch {
    return false;
  }
  lastPlain = host;
  return true;
}
