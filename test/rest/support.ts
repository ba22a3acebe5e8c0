/**
 * A REST client for tests that checks every response against the OpenAPI
 * document (rest/openapi.ts): the path template the URL matches, the status
 * code documented for it, the documented headers, and the JSON body against
 * the status's schema (Ajv, JSON Schema 2020-12, with formats). It also checks
 * `Content-Type: application/json; charset=utf-8` and that no canary string
 * (test/support/canary.ts) is in any body. Every request of test/rest goes
 * through it, so the document cannot drift from behaviour.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import { buildOpenApi } from "../../rest/openapi.js";
import type { Gateway } from "../../src/server.js";
import { CANARIES } from "../support/canary.js";

const BASE_URL = "http://gateway.test";
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const DOCUMENT_ID = "https://gateway.test/openapi.json";

type Json = Record<string, any>;

export interface RestResponse<B = any> {
  status: number;
  headers: Headers;
  /** The raw body ("" for HEAD). */
  text: string;
  /** The parsed body (undefined for HEAD). */
  body: B;
}

export interface RestClient {
  /** GET (or any method via `init.method`) `path` (with its query), checked against the document. */
  fetch<B = any>(path: string, init?: RequestInit): Promise<RestResponse<B>>;
  get<B = any>(path: string): Promise<RestResponse<B>>;
  /** Every response body seen so far, in order. */
  readonly bodies: string[];
}

export interface RestClientOptions {
  /** Headers sent with every request (an API key, once keys are checked). */
  headers?: Record<string, string>;
  /** The document to check against; the built one by default. */
  document?: object;
}

const escapePointer = (segment: string) => encodeURIComponent(segment.replace(/~/g, "~0").replace(/\//g, "~1"));
const pointer = (...segments: string[]) => `#/${segments.map(escapePointer).join("/")}`;

/** Resolves a local `$ref` ("#/a/b") in `doc`. */
export function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith("#")) throw new Error(`not a local $ref: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** Checks responses against one OpenAPI document. */
export class OpenApiChecker {
  readonly doc: Json;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp }[];

  constructor(document: object = buildOpenApi()) {
    this.doc = document as Json;
    this.ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    formats.default(this.ajv);
    // The document's own (non-schema) keywords, so that strict mode accepts it as the root of the $refs.
    this.ajv.addVocabulary([
      "openapi",
      "jsonSchemaDialect",
      "info",
      "servers",
      "tags",
      "security",
      "paths",
      "webhooks",
      "components",
      "externalDocs",
    ]);
    this.ajv.addSchema(this.doc, DOCUMENT_ID);
    this.templates = Object.keys(this.doc.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`),
      }))
      // Literal segments win over templated ones (OpenAPI path matching).
      .sort((a, b) => a.template.split("{").length - b.template.split("{").length);
  }

  /** The path template `pathname` matches, if any (`/api/v1/` is the root, which the document lists once, without the slash). */
  template(pathname: string): string | undefined {
    const path = pathname === "/api/v1/" ? "/api/v1" : pathname;
    return this.templates.find((t) => t.pattern.test(path))?.template;
  }

  /** A validator for the schema at `ref` (a pointer into the document). */
  validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${ref}` });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /** Validates `value` against the schema at `ref`; throws with Ajv's errors otherwise. */
  assertSchema(ref: string, value: unknown, what: string): void {
    const validate = this.validator(ref);
    if (!validate(value)) {
      throw new Error(
        `${what} does not match ${ref}: ${this.ajv.errorsText(validate.errors, { separator: "; " })}\n${JSON.stringify(value)}`,
      );
    }
  }

  /** Throws unless the response (already read as `text`) is what the document says. */
  check(method: string, url: URL, response: Response, text: string): void {
    const what = `${method} ${url.pathname}${url.search} → ${response.status}`;
    const contentType = response.headers.get("content-type");
    if (contentType !== JSON_CONTENT_TYPE) throw new Error(`${what}: content-type ${contentType}, expected ${JSON_CONTENT_TYPE}`);
    for (const canary of CANARIES) {
      if (text.includes(canary)) throw new Error(`${what}: the body contains the canary ${canary}: ${text}`);
    }

    const template = this.template(url.pathname);
    let responseRef: string;
    if (template === undefined) {
      if (!url.pathname.startsWith("/api/v1/")) throw new Error(`${what}: the path is not in the OpenAPI document`);
      if (response.status !== 404) throw new Error(`${what}: an undocumented path under /api/v1/ must give 404`);
      responseRef = pointer("components", "responses", "NotFound");
    } else {
      const item = this.doc.paths[template] as Json;
      const verb = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
      const own = item[verb] as Json | undefined;
      const operationVerb = own ? verb : "get";
      if (!own && response.status !== 405) throw new Error(`${what}: ${method} is not an operation of ${template}, expected 405`);
      const responses = (item[operationVerb] as Json | undefined)?.responses as Json | undefined;
      if (!responses?.[String(response.status)]) {
        throw new Error(`${what}: status ${response.status} is not documented for ${operationVerb.toUpperCase()} ${template}`);
      }
      responseRef = pointer("paths", template, operationVerb, "responses", String(response.status));
    }
    let responseObject = resolvePointer(this.doc, responseRef) as Json;
    while (typeof responseObject.$ref === "string") {
      responseRef = responseObject.$ref;
      responseObject = resolvePointer(this.doc, responseRef) as Json;
    }

    for (const [name, declared] of Object.entries((responseObject.headers ?? {}) as Json)) {
      const header = (declared.$ref ? resolvePointer(this.doc, declared.$ref) : declared) as Json;
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) throw new Error(`${what}: the required header ${name} is missing`);
        continue;
      }
      const schema = header.schema as Json;
      const parsed = schema.type === "integer" ? (/^\d+$/.test(value) ? Number(value) : value) : value;
      const headerRef = declared.$ref ? `${declared.$ref}/schema` : `${responseRef}/headers/${escapePointer(name)}/schema`;
      this.assertSchema(headerRef, parsed, `${what}: header ${name}`);
    }

    if (method.toUpperCase() === "HEAD") {
      if (text !== "") throw new Error(`${what}: a HEAD response has a body`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${what}: the body is not JSON: ${text.slice(0, 200)}`);
    }
    if (!responseObject.content?.["application/json"]?.schema) throw new Error(`${what}: no JSON schema documented`);
    this.assertSchema(`${responseRef}/content/application~1json/schema`, body, `${what}: body`);
  }
}

let shared: OpenApiChecker | undefined;

/** A client over `gateway` whose every response is checked against the OpenAPI document. */
export function restClient(gateway: Gateway, options: RestClientOptions = {}): RestClient {
  const checker = options.document ? new OpenApiChecker(options.document) : (shared ??= new OpenApiChecker());
  const bodies: string[] = [];
  const client: RestClient = {
    bodies,
    async fetch(path, init = {}) {
      const url = new URL(path, BASE_URL);
      const method = (init.method ?? "GET").toUpperCase();
      const response = await gateway.fetch(url.toString(), {
        ...init,
        method,
        headers: { ...options.headers, ...(init.headers as Record<string, string> | undefined) },
      });
      const text = await response.text();
      bodies.push(text);
      checker.check(method, url, response, text);
      return { status: response.status, headers: response.headers, text, body: method === "HEAD" ? undefined : JSON.parse(text) };
    },
    get(path) {
      return client.fetch(path);
    },
  };
  return client;
}
