/**
 * `usePlannedDocuments`: GraphQL documents the gateway has answered, planned
 * to be answered again without yoga. When a `POST /graphql` that the lean
 * path (src/lean/path.ts) read and marked ({@link planRequest}) is answered
 * 200 by its compiled operation without errors, the document is kept as a
 * plan: that operation, the media type the answer had for the request's
 * `Accept`, what it uses, and its SQL plan when it has one (a statement for
 * the whole document: src/sql-plans/plan.ts). The lean path then runs the next request of the
 * same document, media types and operation name itself, whatever its
 * variables, after the same checks the gateway would make of them (the key
 * and limits, the variables' text and list limits, their coercion, the cost
 * with them), and hands the request on to the gateway whenever one of them
 * refuses it or its answer has an error, so that every refusal and error is
 * the gateway's own.
 *
 * A document's own checks (parsing, validation, its bounds, trusted
 * documents) depend on its text alone: it is planned only once it passed
 * them.
 */
import type { DocumentNode, GraphQLSchema } from "graphql";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import { planSql, type SqlPlan } from "../sql-plans/plan.js";
import { usesNoted } from "../usage/coordinates.js";
import { answeredCompiled, type Operation } from "./compiled-execution.js";

/** A document the lean path may run. */
export interface PlannedDocument {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName: string | undefined;
  /** Its compiled operation (src/plugins/compiled-execution.ts). */
  operation: Operation;
  /** The document as one SQL statement, when every field of it has a SQL form (src/sql-plans/plan.ts). */
  sql: SqlPlan | undefined;
  /** The media type of its answer (it follows the request's `Accept`). */
  contentType: string;
  /** What a request of it uses (src/usage/coordinates.ts). */
  uses: readonly string[] | undefined;
}

/** The planned documents of one gateway, by {@link planKey}: the 1,000 last used. */
export class PlannedDocuments {
  private readonly plans = new LRUCache<string, PlannedDocument>({ max: 1_000 });

  get(key: string): PlannedDocument | undefined {
    return this.plans.get(key);
  }

  set(key: string, plan: PlannedDocument): void {
    this.plans.set(key, plan);
  }
}

/**
 * The key of a POST's document: the media types it accepts and is in (the
 * answer's media type follows them), its operation name and its text.
 */
export const planKey = (accept: string, contentType: string, operationName: string | undefined, query: string): string =>
  `${accept}\u0000${contentType}\u0000${operationName ?? ""}\u0000${query}`;

/** The plan key of each Node request the lean path marked, by that request. */
const marked = new WeakMap<object, string>();

/** Marks a Node request whose document may be planned under `key`, once the gateway has answered it. */
export function planRequest(nodeRequest: object, key: string): void {
  marked.set(nodeRequest, key);
}

export interface PlannedDocumentsOptions {
  /** Where the plans are kept. */
  plans: PlannedDocuments;
  /** A document's compiled operation (useCompiledExecution's own). */
  compiled(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): Operation | null;
}

/** Keeps, in `plans`, the documents of marked requests answered by their compiled operation. */
export function usePlannedDocuments(options: PlannedDocumentsOptions): Plugin {
  const { plans, compiled } = options;
  /** The execution of each marked request (by its Fetch request), until its answer is known. */
  const executions = new WeakMap<
    Request,
    { key: string; plan: Omit<PlannedDocument, "operation" | "sql" | "contentType" | "uses">; context: object }
  >();
  return {
    onExecute({ args }) {
      // yoga's context holds the server's (the Node request, `req`) and the Fetch request.
      const { req: nodeRequest, request } = args.contextValue as { req?: object; request?: Request };
      const key = nodeRequest && marked.get(nodeRequest);
      if (!key || !request) return;
      executions.set(request, {
        key,
        plan: { schema: args.schema, document: args.document, operationName: args.operationName ?? undefined },
        context: args.contextValue as object,
      });
    },
    onResponse({ request, response }) {
      const execution = executions.get(request);
      if (!execution || response.status !== 200 || !answeredCompiled(execution.context)) return;
      const { schema, document, operationName } = execution.plan;
      const operation = compiled(schema, document, operationName);
      if (!operation) return;
      plans.set(execution.key, {
        ...execution.plan,
        operation,
        sql: sqlPlanOf(schema, document, operationName),
        contentType: response.headers.get("content-type") ?? "application/json; charset=utf-8",
        uses: usesNoted(request),
      });
    },
  };
}

/** A document's SQL plan; none when planning it fails, so that the compiled operation answers it as before. */
function sqlPlanOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): SqlPlan | undefined {
  try {
    return planSql(schema, document, operationName);
  } catch {
    return undefined;
  }
}
