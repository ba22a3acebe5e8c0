/**
 * An answer's entity tag, as every surface gives it (src/plugins/conditional.ts
 * on yoga's answers, the lean path on kept ones, REST's kept texts): below
 * them all, so that each reads it from here.
 */
import { createHash } from "node:crypto";

/** The weak `ETag` of a body; a cached answer's is computed once, when it is kept (./keep.ts). */
export const etagOf = (body: Uint8Array | string): string => `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
