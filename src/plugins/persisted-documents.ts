/**
 * `usePersistedDocuments`: a client may send a document's SHA-256 hash
 * (`extensions.persistedQuery.sha256Hash`, version 1) instead of its text,
 * by POST or by GET, in one of two modes.
 *
 * - **Automatic persisted queries** (the default), by yoga's `useAPQ`. A hash
 *   no process has been sent with its document is answered with the
 *   standard `PersistedQueryNotFound` error (404); the client then sends the
 *   document once with its hash, which is checked and kept (a
 *   `PersistedQueryMismatch`, 400, when it is not the document's): in this
 *   process, and with Redis for every process that shares it
 *   (src/cache/persisted-queries.ts). Any document may still be sent as text.
 * - **Trusted documents** (`TRUSTED_DOCUMENTS`), by yoga's
 *   `usePersistedOperations`: only the documents of that file run. A hash
 *   not in it, or a text that is not one of them, is a 400 in GraphQL's
 *   shape before anything is parsed. A document sent as text runs when its
 *   hash is in the file, so an automatic-persisted-query client that sends
 *   the hash, then the text, is served too.
 *
 * The fixed operations of REST and MCP are executed by the gateway itself
 * (rest/api.ts), not sent to `/graphql`, so they are always trusted. Keys and
 * limits are checked before this plugin, as for any request; what a hash
 * names then goes through the same parsing, limits and cache as a text.
 */
import { readFileSync } from "node:fs";
import { useAPQ } from "@graphql-yoga/plugin-apq";
import { usePersistedOperations } from "@graphql-yoga/plugin-persisted-operations";
import { GraphQLError, type GraphQLSchema, OperationTypeNode, validate } from "graphql";
import type { GraphQLParams, Plugin } from "graphql-yoga";
import type { Logger } from "pino";
import * as z from "zod";
import { type DocumentRedis, PersistedQueryStore } from "../cache/persisted-queries.js";
import { ConfigError } from "../config.js";
import { DOCUMENT_BOUNDS, type DocumentBounds, isLimitCode, parseWithinTokens, shapeErrors } from "../schema/document-limits.js";
import { DOCUMENT_ID, sha256Hex } from "../sha256.js";

/** Hash → document text. */
export type TrustedDocuments = ReadonlyMap<string, string>;

export interface PersistedDocumentsOptions {
  /** Only these documents run (TRUSTED_DOCUMENTS); unset: any document, and automatic persisted queries. */
  trusted?: TrustedDocuments | undefined;
  /**
   * Most characters of documents kept by hash for automatic persisted
   * queries, in this process; the least recently used go first. Default
   * 4,000,000 (a few thousand documents of a client's size).
   */
  maxStoredChars?: number;
  /** Redis shared by every gateway process, where registered documents are kept for all of them; unset: this process alone. */
  redis?: DocumentRedis | undefined;
  /** Told when the shared store fails and when it answers again. */
  log?: Pick<Logger, "warn" | "info">;
}

/** A refusal of a document bound, as a start failure says it: its code, then the message. */
function limitProblem(error: unknown): string | undefined {
  if (!(error instanceof GraphQLError) || !isLimitCode(error.extensions.code)) return undefined;
  return `${error.extensions.code}: ${error.message}`;
}

const badRequest = (message: string, code: string) => ({ message, extensions: { code, http: { status: 400 } } });

/**
 * The request's `documentId`, if it has one, as the `extensions.persistedQuery`
 * hash that both modes read. yoga's GET parser keeps only `query`,
 * `variables`, `operationName` and `extensions`, so a GET's is read from its
 * URL.
 */
function withDocumentId(params: GraphQLParams & { documentId?: unknown }, request: Request): GraphQLParams {
  let documentId = params.documentId;
  if (documentId === undefined && request.method === "GET") documentId = new URL(request.url).searchParams.get("documentId") ?? undefined;
  if (documentId === undefined || documentId === null) return params;
  if (params.extensions != null && (typeof params.extensions !== "object" || Array.isArray(params.extensions))) {
    throw refusal("extensions must be a JSON object", "BAD_REQUEST");
  }
  const hash = typeof documentId === "string" ? DOCUMENT_ID.exec(documentId)?.[1] : undefined;
  if (!hash) throw refusal("documentId must be sha256: followed by the document's SHA-256 in 64 lowercase hex digits", "BAD_REQUEST");
  if (typeof params.query === "string") throw refusal("send either documentId or query, not both", "BAD_REQUEST");
  const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery;
  if (persisted && persisted.sha256Hash !== hash)
    throw refusal("documentId and extensions.persistedQuery name different documents", "BAD_REQUEST");
  const { documentId: _id, ...rest } = params;
  return { ...rest, extensions: { ...params.extensions, persistedQuery: { version: 1, sha256Hash: hash } } };
}

const refusal = (message: string, code: string) => new GraphQLError(message, badRequest(message, code));

/** Reads `documentId` (GET and POST) into the persisted query hash before either mode sees the request. */
const useDocumentId: Plugin = {
  onRequestParse({ requestParser, setRequestParser }) {
    if (!requestParser) return;
    setRequestParser(async (request) => {
      const parsed = await requestParser(request);
      // A batch (which yoga refuses), a body that is not an object, or an answer already made go on as they are.
      if (Array.isArray(parsed) || typeof parsed !== "object" || parsed === null || "status" in parsed) return parsed;
      return withDocumentId(parsed, request);
    });
  },
};

export function usePersistedDocuments(options: PersistedDocumentsOptions = {}): Plugin[] {
  const { trusted } = options;
  if (!trusted) {
    const store = new PersistedQueryStore({ maxStoredChars: options.maxStoredChars ?? 4_000_000, redis: options.redis, log: options.log });
    return [useDocumentId, useAPQ({ store })];
  }
  return [
    useDocumentId,
    {
      // A text that is one of the trusted documents is sent on as its hash.
      onParams({ params, setParams }) {
        if (typeof params.query !== "string") return;
        const hash = sha256Hex(params.query);
        if (!trusted.has(hash)) return;
        const { query: _text, ...rest } = params;
        setParams({ ...rest, extensions: { ...params.extensions, persistedQuery: { version: 1, sha256Hash: hash } } });
      },
    },
    usePersistedOperations({
      getPersistedOperation: (hash) => trusted.get(hash) ?? null,
      customErrors: {
        notFound: badRequest("PersistedQueryNotFound", "PERSISTED_QUERY_NOT_IN_LIST"),
        keyNotFound: badRequest(
          "send extensions.persistedQuery.sha256Hash: only the trusted documents run on this gateway",
          "PERSISTED_QUERY_ID_REQUIRED",
        ),
        persistedQueryOnly: badRequest(
          "this document is not one of the trusted documents: only those run on this gateway",
          "PERSISTED_QUERY_NOT_IN_LIST",
        ),
      },
    }),
  ];
}

/**
 * The usual forms of a trusted documents file: a JSON object of hash → text
 * (relay-compiler's `persisted.json`, with bare hex keys; GraphQL Codegen's
 * client preset's `persisted-documents.json`, with `sha256:<hex>` keys), or
 * Apollo's persisted query manifest.
 */
const HashToText = z.record(z.string(), z.string());
const ApolloManifest = z.object({
  format: z.literal("apollo-persisted-query-manifest"),
  version: z.literal(1),
  operations: z.array(z.object({ id: z.string(), body: z.string() })),
});

/**
 * Reads the trusted documents file of TRUSTED_DOCUMENTS. Each entry's hash
 * must be the SHA-256 of its text, and each text must be a query that
 * validates against the schema and keeps the document bounds that every
 * request is held to (src/schema/document-limits.ts: a document over them
 * could never run): any other entry stops the start with a ConfigError
 * naming the file, the entry and what is wrong.
 */
export function readTrustedDocuments(file: string, schema: GraphQLSchema, bounds: DocumentBounds = DOCUMENT_BOUNDS): TrustedDocuments {
  const documents = new Map<string, string>();
  for (const [hash, text] of trustedEntries(file)) {
    const problems = documentProblems(schema, text, bounds);
    if (problems.length) throw trustedFileError(file, `entry ${JSON.stringify(hash)}: ${problems.join("; ")}`);
    documents.set(hash, text);
  }
  return documents;
}

const trustedFileError = (file: string, problem: string) => new ConfigError(`TRUSTED_DOCUMENTS ${file}: ${problem}`);

/**
 * The entries of a trusted documents file (hash → text), each hash checked
 * to be the SHA-256 of its text; the documents themselves are not looked at.
 * Throws a ConfigError naming the file and what is wrong.
 */
export function trustedEntries(file: string): Map<string, string> {
  const fail = (problem: string) => trustedFileError(file, problem);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw fail(error instanceof SyntaxError ? "is not JSON" : "cannot be read");
  }
  const manifest = ApolloManifest.safeParse(json);
  const map = HashToText.safeParse(json);
  const entries = manifest.success
    ? manifest.data.operations.map((o) => [o.id, o.body] as const)
    : map.success
      ? Object.entries(map.data)
      : undefined;
  if (!entries) throw fail("must be a JSON object of SHA-256 hash → document, or an Apollo persisted query manifest (version 1)");
  if (entries.length === 0) throw fail("holds no document");
  const documents = new Map<string, string>();
  for (const [key, text] of entries) {
    const entry = `entry ${JSON.stringify(key.slice(0, 80))}`;
    // GraphQL Codegen's client preset writes its keys as document ids (`sha256:<hex>`), Relay's compiler as bare hex.
    const hash = DOCUMENT_ID.exec(key)?.[1];
    if (!hash) throw fail(`${entry}: the key must be a lowercase hex SHA-256 hash, alone or after sha256:`);
    if (sha256Hex(text) !== hash) throw fail(`${entry}: the hash is not the SHA-256 of its document`);
    documents.set(hash, text);
  }
  return documents;
}

/** Why `text` could not run against `schema` (it does not parse or validate, breaks a bound, or is not a query); empty when it can. */
export function documentProblems(schema: GraphQLSchema, text: string, bounds: DocumentBounds = DOCUMENT_BOUNDS): string[] {
  try {
    const document = parseWithinTokens(text, bounds.maxTokens);
    const problems = [...validate(schema, document), ...shapeErrors(schema, document, bounds)].map((e) => limitProblem(e) ?? e.message);
    const mutates = document.definitions.some((d) => d.kind === "OperationDefinition" && d.operation !== OperationTypeNode.QUERY);
    if (mutates) problems.push("only queries are served");
    return problems;
  } catch (error) {
    return [limitProblem(error) ?? (error as Error).message];
  }
}
