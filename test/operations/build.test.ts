/**
 * The built artefact: `npm run build` bundles into dist/, and the gateway runs
 * from it with plain `node` (no TypeScript loader anywhere in the process),
 * from any directory. The `bin` entries launch the commands and the stdio MCP
 * server from any directory too.
 *
 * The build tried is the run's own (`npm run build -- --out …`, made once by
 * the global setup: test/support/built.ts), not another of dist/: the same
 * script, only its folder differs, and a second build would only repeat it.
 * The bins run what the checkout has (dist/ when built, the sources through
 * tsx otherwise), as they do for an operator.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { build as esbuild, type Plugin } from "esbuild";
import { afterAll, describe, expect, inject, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { childEnv } from "../support/built.js";
import { canaryExport } from "../support/canary.js";
import { demoDatabase, freshDatabase } from "../support/databases.js";
import { startGateway, stopAllGateways, waitReady } from "../support/gateway-process.js";
import { freePorts } from "../support/servers.js";
import { expectDrained, signalUnderLoad } from "../support/signal-under-load.js";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);
const elsewhere = mkdtempSync(join(tmpdir(), "built-"));
const { queryCompilerFromFile } = (await import(new URL("../../scripts/query-compiler.mjs", import.meta.url).href)) as {
  queryCompilerFromFile(root: string, found: { specifier?: string }): Plugin;
};
const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };

/** The run's build: what `npm run build` writes to dist/. */
const dist = inject("built");

afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

describe("npm run build", () => {
  it("writes dist/ with the files the code reads at run time", () => {
    for (const file of ["src/main.js", "src/cli/keys.js", "src/mcp/stdio.js", "rest/openapi.json", "graphql/schema.graphql"]) {
      expect(existsSync(join(dist, file)), file).toBe(true);
    }
    expect(existsSync(join(dist, "prisma", "migrations"))).toBe(true);
  });

  it("holds Prisma's query compiler as a .wasm file beside the chunk that reads it, not as a base64 module (scripts/query-compiler.mjs)", () => {
    const chunks = readdirSync(join(dist, "chunks"));
    expect(chunks.filter((name) => name.includes("wasm-base64"))).toEqual([]);
    const compilers = chunks.filter((name) => /^query_compiler_\w+\.postgresql\.wasm$/.test(name));
    expect(compilers).toHaveLength(1);
    // WebAssembly's magic number, and a whole module: the query compiler is over a megabyte.
    const bytes = readFileSync(join(dist, "chunks", compilers[0]!));
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from("\0asm", "latin1"));
    expect(bytes.length).toBeGreaterThan(1_000_000);
    // The chunk that reads it names it.
    const readers = chunks.filter(
      (name) => name.endsWith(".js") && readFileSync(join(dist, "chunks", name), "utf8").includes(compilers[0]!),
    );
    expect(readers).toHaveLength(1);
  });

  it("bundles zod's English messages only: no chunk holds another of its locales, which every command would compile at start", () => {
    const chunks = readdirSync(join(dist, "chunks")).filter((name) => name.endsWith(".js.map"));
    const zodLocales = new Set<string>();
    for (const map of chunks) {
      const { sources } = JSON.parse(readFileSync(join(dist, "chunks", map), "utf8")) as { sources: string[] };
      for (const source of sources) {
        // Relative to the map, as ../../../zod/v4/locales/en.js from a build inside node_modules/.
        const locale = /(?:^|\/)zod\/v4\/locales\/([\w-]+)\.js$/.exec(source)?.[1];
        if (locale) zodLocales.add(locale);
      }
    }
    // zod is bundled, and with it the English messages it sets at load.
    expect([...zodLocales]).toEqual(["en"]);
  });

  it("fails, saying why, when the generated client loads its query compiler in a way the build does not rewrite", async () => {
    const root = mkdtempSync(join(tmpdir(), "query-compiler-"));
    try {
      const generated = join(root, "src", "generated", "prisma", "internal");
      mkdirSync(generated, { recursive: true });
      writeFileSync(
        join(generated, "class.ts"),
        "export const config = { compilerWasm: { getQueryCompilerWasmModule: async () => undefined } }\n",
      );
      const failed = await esbuild({
        absWorkingDir: root,
        entryPoints: [join(generated, "class.ts")],
        bundle: true,
        write: false,
        logLevel: "silent",
        plugins: [queryCompilerFromFile(root, {})],
      }).then(
        () => undefined,
        (error: { errors: { text: string }[] }) => error.errors.map((e) => e.text),
      );
      expect(failed).toEqual([
        "src/generated/prisma/internal/class.ts: Prisma's query compiler loader is not the one scripts/query-compiler.mjs rewrites",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("serves from dist/ with plain node, started from another directory", async () => {
    const db = await demoDatabase();
    const [port] = await freePorts(1);
    const env: NodeJS.ProcessEnv = { ...childEnv(), DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: "warn" };
    const child = spawn(process.execPath, [join(dist, "src", "main.js")], {
      cwd: elsewhere,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    try {
      const key = (await new KeyStore(db).create({ name: "built", owner: "test" })).key;
      const deadline = Date.now() + 120_000;
      let status = 0;
      while (Date.now() < deadline && status !== 200) {
        if (child.exitCode !== null) throw new Error(`the built gateway exited:\n${output}`);
        status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await new Promise((r) => setTimeout(r, 300));
      }
      const answer = await fetch(`http://127.0.0.1:${port}/api/v1/universities`, { headers: { authorization: `Bearer ${key}` } });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { success: boolean }).success).toBe(true);
      // No TypeScript loader in the process: its loaded modules are the built ones.
      expect(readFileSync(`/proc/${child.pid}/cmdline`, "utf8")).not.toContain("tsx");

      // An MCP client launches the stdio server by the bin's path alone, as the README's snippet does.
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(
        new StdioClientTransport({
          command: join(ROOT, packageJson.bin["uedu-mcp"]!),
          cwd: elsewhere,
          env: { ...childEnv(), UEDU_API_KEY: key, UEDU_API_BASE_URL: `http://127.0.0.1:${port}` },
          stderr: "pipe",
        }),
      );
      try {
        const result = await client.callTool({ name: "list_universities", arguments: {} });
        expect(result.isError).toBeFalsy();
        expect((result.structuredContent as { items: unknown[] }).items.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    } finally {
      child.kill("SIGTERM");
      const code = await new Promise((resolve) => child.once("exit", resolve));
      await db.close();
      expect(code, output).toBe(0);
    }
  }, 180_000);

  it("imports from dist/ with plain node, drawing its progress from the built worker", async () => {
    const db = await freshDatabase();
    try {
      const file = join(elsewhere, "canary.json");
      writeFileSync(file, JSON.stringify(canaryExport()));
      const { stdout, stderr } = await run(process.execPath, [join(dist, "src", "cli", "import.js"), file], {
        cwd: elsewhere,
        env: { ...childEnv(), DATABASE_URL: db.url },
        timeout: 60_000,
      });
      expect(stdout).toMatch(/^imported 3 universities, .* in \d+\.\d s\n$/);
      const phases = stderr
        .split("\n")
        .filter((line) => line.startsWith('{"progress":'))
        .map((line) => (JSON.parse(line) as { phase: string }).phase);
      expect(phases).toContain("validating");
      expect(phases.at(-1)).toBe("done");
    } finally {
      await db.close();
    }
  }, 90_000);

  // The same shutdown as test/operations/shutdown.test.ts's under `npm start`, with the signal to the process itself.
  it.each([1, 2])(
    "drains on SIGTERM under load from dist/ with WEB_CONCURRENCY=%i: 30 requests in flight answered whole, exit 0",
    async (workers) => {
      const db = await demoDatabase();
      try {
        const key = (await new KeyStore(db).create({ name: "drained", owner: "test" })).key;
        const gateway = await startGateway(
          `dist, ${workers}`,
          {
            DATABASE_URL: db.url,
            WEB_CONCURRENCY: String(workers),
            LOG_LEVEL: "info",
            SHUTDOWN_TIMEOUT_MS: "10000",
            RATE_LIMIT_PER_MINUTE: "100000",
            RESPONSE_CACHE_MS: "0",
          },
          { command: [process.execPath, join(dist, "src", "main.js")] },
        );
        await waitReady(gateway, 180_000);
        const outcome = await signalUnderLoad({
          port: Number(new URL(gateway.base).port),
          key,
          signal: () => process.kill(gateway.child.pid!, "SIGTERM"),
          exited: gateway.exited,
          output: gateway.output,
          stoppers: workers,
        });
        expectDrained(outcome, 10_000, gateway.output());
      } finally {
        await stopAllGateways();
        await db.close();
      }
    },
    240_000,
  );

  it.each([
    ["..", "is not a folder inside the repository"],
    [elsewhere, "is not a folder inside the repository"],
    ["node_modules/.cache/not-a-build", "holds files that no build wrote"],
  ])("--out %s is refused before anything is removed: exit 2, one line and the usage", async (out, why) => {
    // A folder of the repository that no build wrote, with a file in it.
    const kept = join(ROOT, "node_modules", ".cache", "not-a-build", "kept.txt");
    mkdirSync(dirname(kept), { recursive: true });
    writeFileSync(kept, "");
    try {
      const refused = await run(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--out", out], { cwd: ROOT }).catch(
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(refused).toMatchObject({ code: 2, stdout: "" });
      expect(refused.stderr).toMatch(new RegExp(`^build: --out \\S+ ${why}[^\n]*\nusage: npm run build`));
      expect(existsSync(kept)).toBe(true);
    } finally {
      rmSync(dirname(kept), { recursive: true, force: true });
    }
  });

  it.each(Object.entries(packageJson.bin))("bin %s runs from another directory", async (name, file) => {
    const { stdout } = await run(join(ROOT, file), ["--help"], { cwd: elsewhere, timeout: 30_000 });
    expect(stdout).toMatch(name === "uedu" ? /^usage: uedu <command>/ : /^usage: npm run mcp:stdio/);
  });
});
