/**
 * The fixed GraphQL operations behind the REST routes: graphql/operations/*.graphql,
 * each with the fragments it spreads, parsed and validated against the schema
 * once. A document that no longer validates stops the start.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type DocumentNode, type GraphQLSchema, Kind, parse, Source, validate, visit } from "graphql";
import { FILES_ROOT } from "../src/files.js";

export const OPERATIONS_DIR = join(FILES_ROOT, "graphql", "operations");
const FRAGMENTS_FILE = "fragments.graphql";

function parseFile(dir: string, file: string): DocumentNode {
  try {
    return parse(new Source(readFileSync(join(dir, file), "utf8"), file));
  } catch (error) {
    throw new Error(`REST operation ${file} does not parse: ${(error as Error).message}`, { cause: error });
  }
}

/** Reads, completes with fragments, and validates every operation document. */
export function loadOperations(schema: GraphQLSchema, dir = OPERATIONS_DIR): Map<string, DocumentNode> {
  const fragments = parseFile(dir, FRAGMENTS_FILE).definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  const byName = new Map(fragments.map((f) => [f.name.value, f]));
  const operations = new Map<string, DocumentNode>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".graphql") && f !== FRAGMENTS_FILE)
    .sort()) {
    const name = file.slice(0, -".graphql".length);
    const own = parseFile(dir, file);
    const needed = new Set<string>();
    const collect = (node: DocumentNode | (typeof fragments)[number]) =>
      visit(node, {
        FragmentSpread(spread) {
          if (needed.has(spread.name.value)) return;
          needed.add(spread.name.value);
          const fragment = byName.get(spread.name.value);
          if (fragment) collect(fragment);
        },
      });
    collect(own);
    const document: DocumentNode = {
      ...own,
      definitions: [...own.definitions, ...[...needed].flatMap((n) => byName.get(n) ?? [])],
    };
    const errors = validate(schema, document);
    if (errors.length > 0) {
      throw new Error(`REST operation ${file} no longer validates against the schema: ${errors.map((e) => e.message).join("; ")}`);
    }
    operations.set(name, document);
  }
  return operations;
}
