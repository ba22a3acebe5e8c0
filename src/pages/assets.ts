/**
 * The files the browser pages load, all from the gateway itself: GraphiQL's
 * bundle, style sheet and Monaco workers (`@graphql-yoga/render-graphiql`,
 * which ships them as strings, so nothing comes from a CDN), Swagger UI's
 * bundle and style sheet (`swagger-ui-dist`) for the REST reference, and the
 * service's icon. Each is served at a name that carries a hash of its
 * content, so a browser may keep it for a year.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** One served file. */
export interface Asset {
  /** Its path (`/assets/graphiql.3f2a9c1e0b7d.js`). */
  path: string;
  type: string;
  body: string;
}

/** The files of the GraphiQL page, by what they are. */
export interface GraphiQLAssets {
  script: Asset;
  style: Asset;
  /** Monaco's workers, by the label Monaco asks for (`editorWorkerService`, `json`, `graphql`). */
  workers: Record<"editorWorkerService" | "json" | "graphql", Asset>;
}

const asset = (name: string, extension: string, type: string, body: string): Asset => ({
  path: `/assets/${name}.${createHash("sha256").update(body).digest("hex").slice(0, 12)}.${extension}`,
  type,
  body,
});

/** The service's icon: an open book. */
export const ICON = asset(
  "icon",
  "svg",
  "image/svg+xml",
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f5f8b"/>` +
    `<path d="M6 9c4-1.5 7-1 10 1 3-2 6-2.5 10-1v14c-4-1.5-7-1-10 1-3-2-6-2.5-10-1z" fill="#fff"/><path d="M16 10v14" stroke="#1f5f8b" stroke-width="1.5"/></svg>`,
);

let graphiql: Promise<GraphiQLAssets> | undefined;

/** GraphiQL's files, read on first use (about 9 MB of JavaScript that a gateway never asked for need not hold). */
export function graphiqlAssets(): Promise<GraphiQLAssets> {
  graphiql ??= import("@graphql-yoga/render-graphiql/graphiql").then((g) => ({
    script: asset("graphiql", "js", "text/javascript; charset=utf-8", g.js),
    style: asset("graphiql", "css", "text/css; charset=utf-8", g.css),
    workers: {
      editorWorkerService: asset("graphiql-editor.worker", "js", "text/javascript; charset=utf-8", g.editorWorkerService),
      json: asset("graphiql-json.worker", "js", "text/javascript; charset=utf-8", g.jsonWorker),
      graphql: asset("graphiql-graphql.worker", "js", "text/javascript; charset=utf-8", g.graphqlWorker),
    },
  }));
  return graphiql;
}

/** The files of the REST reference page. */
export interface SwaggerAssets {
  script: Asset;
  style: Asset;
}

let swagger: Promise<SwaggerAssets> | undefined;

/** Swagger UI's files, read on first use from the installed package. */
export function swaggerAssets(): Promise<SwaggerAssets> {
  swagger ??= (async () => {
    const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
    const [script, style] = await Promise.all([
      readFile(join(dir, "swagger-ui-bundle.js"), "utf8"),
      readFile(join(dir, "swagger-ui.css"), "utf8"),
    ]);
    return {
      // The bundle names its source map, which is not served: drop the reference.
      script: asset("swagger-ui", "js", "text/javascript; charset=utf-8", script.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n")),
      style: asset("swagger-ui", "css", "text/css; charset=utf-8", style.replace(/\n?\/\*# sourceMappingURL=[^*\s]+\s*\*\/\s*$/, "\n")),
    };
  })();
  return swagger;
}

/** The asset served at `path`, if any. */
export async function assetAt(path: string): Promise<Asset | undefined> {
  if (path === ICON.path) return ICON;
  if (path.startsWith("/assets/graphiql")) {
    const g = await graphiqlAssets();
    return [g.script, g.style, ...Object.values(g.workers)].find((a) => a.path === path);
  }
  if (path.startsWith("/assets/swagger-ui")) {
    const s = await swaggerAssets();
    return [s.script, s.style].find((a) => a.path === path);
  }
  return undefined;
}
