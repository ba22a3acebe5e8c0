#!/usr/bin/env node
// `npm run typecheck`, the first step of `npm test`, and `npm run build`'s
// check: TypeScript 7's compiler, the native one (the dev dependency
// `typescript-7`, the registry's `typescript@7`). It checks this project in
// about 4 s and 5 CPU-seconds on two cores, where TypeScript 5.9's took 14 s
// and 21, with the same errors. The `typescript` dependency stays at 5.9 for
// the tools that read TypeScript through the compiler's JavaScript API, which
// TypeScript 7 does not have (dependency-cruiser's `tsPreCompilationDeps`).
//
// One checker (`--checkers 1`): on two cores, its default of four cost twice
// the CPU for no gain in time (10 CPU-s and 5.2 s, against 5 CPU-s and 4.0 s).
//
//     node scripts/typecheck.mjs [-p tsconfig.build.json]
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

/** The command that checks a project without writing anything: this Node, TypeScript 7's `tsc`, and its options. */
export function typecheckCommand() {
  // The package exports no bin/ path: it is found beside its package.json.
  const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript-7/package.json")), "bin", "tsc");
  return [process.execPath, tsc, "--noEmit", "--checkers", "1"];
}

/** Checks the project of `args` (tsc's arguments; the repository's tsconfig.json by default): tsc's exit status, its errors on standard output. */
export function typecheck(args = []) {
  const [program, ...options] = typecheckCommand();
  return spawnSync(program, [...options, ...args], { stdio: "inherit" }).status ?? 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(typecheck(process.argv.slice(2)));
}
