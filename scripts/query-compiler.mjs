// The build's Prisma query compiler as a .wasm file beside the chunk that
// loads it, instead of the 2.3 MB base64 module that the generated client
// imports (scripts/build.mjs). Each process that opens a Prisma client
// otherwise compiles that module's source and decodes its string before
// compiling the WebAssembly: about 45-60 ms of its main thread at every
// gateway start on these machines, and the string stays in its heap. Read
// from a file, the same bytes cost a read of 1.7 MB. The sources (run with
// tsx) keep the generated code as it is.
import { readFile } from "node:fs/promises";
import { realpathSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The generated client's loader of the query compiler, as `prisma generate` writes it (the module it imports is group 1). */
const GENERATED_LOADER =
  /getQueryCompilerWasmModule: async \(\) => \{\s*const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_\w+\.\w+\.wasm-base64\.mjs)"\)\s*return await decodeBase64AsWasm\(wasm\)\s*\}/;

/** The generated file that holds it, under the repository, as esbuild's metafile names its inputs. */
const GENERATED_CLASS = "src/generated/prisma/internal/class.ts";

/** The .wasm file's name for the base64 module `specifier` names. */
const wasmName = (specifier) => specifier.split("/").pop().replace(".wasm-base64.mjs", ".wasm");

/**
 * An esbuild plugin that rewrites the generated client's loader to read the
 * query compiler from `<its name>.wasm` beside the output file, and records
 * which base64 module it replaced in `found.specifier`. A generated client
 * whose loader no longer reads as expected fails the build, with the reason.
 */
export function queryCompilerFromFile(root, found) {
  // Compared as real paths: esbuild reads its inputs through symbolic links.
  const target = realpathSync(resolve(root, GENERATED_CLASS));
  return {
    name: "query-compiler-from-file",
    setup(build) {
      build.onLoad({ filter: /[\\/]internal[\\/]class\.ts$/ }, async (args) => {
        if (realpathSync(args.path) !== target) return undefined;
        const source = await readFile(args.path, "utf8");
        const loader = GENERATED_LOADER.exec(source);
        if (!loader) {
          return {
            errors: [{ text: `${GENERATED_CLASS}: Prisma's query compiler loader is not the one scripts/query-compiler.mjs rewrites` }],
          };
        }
        found.specifier = loader[1];
        const reading = [
          "getQueryCompilerWasmModule: async () => {",
          '    const { readFile } = await import("node:fs/promises")',
          `    return await WebAssembly.compile(await readFile(new URL(${JSON.stringify(`./${wasmName(loader[1])}`)}, import.meta.url)))`,
          "  }",
        ].join("\n");
        return { contents: source.replace(loader[0], reading), loader: "ts" };
      });
    },
  };
}

/**
 * Writes the query compiler's bytes (decoded from the base64 module the
 * client would have imported) beside every output file of `metafile` that
 * holds the rewritten loader.
 */
export async function writeQueryCompiler(root, metafile, found) {
  if (!found.specifier) throw new Error(`${GENERATED_CLASS} was not bundled: no query compiler to write`);
  // From this folder, the repository's node_modules: the package the client would have imported.
  const { wasm } = await import(found.specifier);
  const bytes = Buffer.from(wasm, "base64");
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (GENERATED_CLASS in inputs) writeFileSync(join(resolve(root, dirname(output)), wasmName(found.specifier)), bytes);
  }
}
