// Loaded with `node --import` by test/operations/lazy-modules.test.ts: writes
// the URL of every module the process loads through the ESM loader (its own
// modules, and each package's entry, CommonJS ones included) to the file
// LOADED_MODULES_FILE names, one per line, as it loads them.
import { register } from "node:module";

register("./loaded-modules-hooks.mjs", import.meta.url, { data: { file: process.env.LOADED_MODULES_FILE } });
