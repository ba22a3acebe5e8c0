/**
 * The documentation is executed: every command and request of a `sh` block in
 * README.md and docs/*.md runs as written, and its answer is checked.
 *
 * - `curl` lines run through bash against `npm start`'s entry (src/main.ts)
 *   on a real socket, on a private PostgreSQL that it fills with the demo
 *   data; only the address is changed (to the test's port) and `-sS -w`
 *   added to read the status; `$KEY` is a key made for the test. Each must
 *   answer 200 in its surface's success shape, and a `json` block right
 *   under a request must be its answer.
 * - `npm run` lines run in a copy of the repository's files (its
 *   node_modules linked), so the commands that rewrite committed files write
 *   the copy, and what they write must be what is committed.
 * - A block of `NAME=value` lines is a configuration: `loadConfig` must take it.
 * - A few are run by a test of their own, named here and checked to read the
 *   page: the README's two commands (a fresh clone's install and start), the
 *   agencies' feeds, the sign-in link, and `npm test`, which is this run.
 *
 * Lines stay under 200 characters outside code blocks, tables included, so
 * that the pages read and diff as source.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { KeyStore } from "../src/keys/store.js";
import { demoDatabase } from "./support/databases.js";
import { type GatewayProcess, startGateway, stopAllGateways, waitReady } from "./support/gateway-process.js";
import { tempDir } from "./support/temp.js";

const ROOT = join(import.meta.dirname, "..");
const run = promisify(execFile);
const MAX_LINE = 200;

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

interface Block {
  page: string;
  lang: string;
  text: string;
  /** Whether only blank lines stand between it and the block before it. */
  follows: boolean;
}

/** Every fenced block of every page, in order. */
const blocks: Block[] = PAGES.flatMap((page) => {
  const source = readFileSync(join(ROOT, page), "utf8");
  let end = -1;
  return [...source.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => {
    const follows = end >= 0 && source.slice(end, m.index).trim() === "";
    end = m.index + m[0].length;
    return { page, lang: m[1]!, text: m[2]!, follows };
  });
});

interface Command {
  page: string;
  line: string;
  /** The block right after this one's, when this line is its block's only command. */
  shown?: Block | undefined;
}

/** A block of `NAME=value` lines only: a configuration, not commands. */
const isConfiguration = (block: Block) =>
  block.lang === "sh" &&
  block.text
    .split("\n")
    .filter((line) => line.trim())
    .every((line) => /^[A-Z_]+=\S*$/.test(line));

/** The commands of the `sh` blocks (continuation lines joined), with the block right after a one-command block. */
const commands: Command[] = blocks.flatMap((block, i) => {
  if (block.lang !== "sh" || isConfiguration(block)) return [];
  const lines = block.text
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#") && !/^KEY=/.test(line));
  const next = blocks[i + 1]?.page === block.page && blocks[i + 1]?.follows ? blocks[i + 1] : undefined;
  return lines.map((line) => ({ page: block.page, line, shown: lines.length === 1 ? next : undefined }));
});

/** Commands that something else runs as written: the file that does, and what in it shows so. */
const RUN_ELSEWHERE: { pattern: RegExp; file: string; evidence: string }[] = [
  // A fresh clone's install (npm ci: npm install on a clean tree with the lockfile) and start.
  { pattern: /^npm (install|start)$/, file: "test/newcomer.test.ts", evidence: 'spawn("npm", ["start"]' },
  // The suite itself, as CI runs it.
  { pattern: /^(TEST_\w+=\S+ )*npm test$/, file: ".ci/run", evidence: "  npm test\n" },
  { pattern: /^npm run ingest -- /, file: "test/ingest/cli.test.ts", evidence: "docs/operations.md" },
  // Over the demo data that `npm start` imported, an export with the demo's codes under other ids.
  { pattern: /^npm run import -- platform-export\.json$/, file: "test/import/demo-to-real.test.ts", evidence: "docs/operations.md" },
  { pattern: /^npm run keys -- sign-in-link /, file: "test/account/browser.test.ts", evidence: "docs/api-keys.md" },
  // On a key the page's create line made: its id stands for the page's.
  {
    pattern: /^npm run keys -- (create .*--expires|list --expiring|set-expiry|roll|restrict) /,
    file: "test/keys/cli.test.ts",
    evidence: "docs/api-keys.md",
  },
  // On a database whose usage is known, to check what they print.
  { pattern: /^npm run (usage|contracts:check) -- /, file: "test/usage/cli.test.ts", evidence: "DOCUMENTED" },
  // On a server with the two roles of the set-up, as they are written.
  { pattern: /^npm run (db:migrate$|-s db:grants -- )/, file: "test/db/roles.test.ts", evidence: 'readFileSync(join(ROOT, "README.md")' },
];
const elsewhere = (line: string) => RUN_ELSEWHERE.find(({ pattern }) => pattern.test(line));

describe("the pages", () => {
  it("keep every line outside code blocks under 200 characters", () => {
    const long: string[] = [];
    for (const page of PAGES) {
      let fence = false;
      readFileSync(join(ROOT, page), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (line.trimStart().startsWith("```")) fence = !fence;
          else if (!fence && line.length > MAX_LINE) long.push(`${page}:${i + 1} (${line.length})`);
        });
    }
    expect(long).toEqual([]);
  });

  it("link only to files and headings that exist", () => {
    /** GitHub's id for a heading: lower case, punctuation but hyphens dropped, spaces to hyphens. */
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-");
    const headings = (page: string) =>
      new Set([...readFileSync(join(ROOT, page), "utf8").matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ""))));
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(join(ROOT, page), "utf8").replace(/^```[\s\S]*?^```$/gm, "");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?|mailto):/.test(target!)) continue;
        const [path, anchor] = target!.split("#") as [string, string | undefined];
        const file = path ? join(dirname(page), path) : page;
        if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no ${file})`);
        else if (anchor && file.endsWith(".md") && !headings(file).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("show requests of every surface, and each command they show is run here or by a test that reads its page", () => {
    const curls = commands.filter((c) => c.line.startsWith("curl "));
    expect(curls.some((c) => c.line.includes("/api/v1/"))).toBe(true);
    expect(curls.some((c) => c.line.includes("/graphql"))).toBe(true);
    expect(curls.some((c) => c.line.includes("/mcp"))).toBe(true);
    for (const { page, line } of commands) {
      const runner = elsewhere(line);
      if (runner) expect(readFileSync(join(ROOT, runner.file), "utf8"), `${runner.file} runs ${page}'s ${line}`).toContain(runner.evidence);
      else expect(line, page).toMatch(/^(curl|npm run) /);
    }
  });

  it("show configurations that the gateway takes", () => {
    const configurations = blocks.filter(isConfiguration);
    expect(configurations.length).toBeGreaterThan(0);
    for (const block of configurations) {
      const env = Object.fromEntries(
        block.text
          .trim()
          .split("\n")
          .map((line) => line.split(/=(.*)/s).slice(0, 2)),
      );
      expect(() => loadConfig(env), `${block.page}: ${block.text}`).not.toThrow();
    }
  });
});

describe("every request, against a live gateway", () => {
  let gateway: GatewayProcess;
  let key: string;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // The demo data, as `npm start` imports it into an empty database (a copy of the run's, not another import).
    const db = await demoDatabase();
    drop = db.close; // closes this connection and drops the database
    gateway = await startGateway("docs", { DATABASE_URL: db.url });
    await waitReady(gateway, 180_000);
    key = (await new KeyStore(db).create({ name: "docs", owner: "test" })).key;
  }, 240_000);

  afterAll(async () => {
    await stopAllGateways();
    await drop?.();
  });

  async function curl(line: string): Promise<{ status: number; body: any }> {
    const command = line.replace(/^curl /, `curl -sS -w '\\n%{http_code}' `).replaceAll("http://127.0.0.1:4000", gateway.base);
    const { stdout } = await run("bash", ["-c", command], { env: { ...process.env, KEY: key }, timeout: 30_000 });
    const cut = stdout.lastIndexOf("\n");
    return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
  }

  const curls = commands.filter((c) => c.line.startsWith("curl "));
  it.each(curls.map((c) => [c.page, c.line, c]))("%s: %s", async (_page, line, command) => {
    const { status, body } = await curl(line as string);
    expect(status).toBe(200);
    if ((line as string).includes("/api/v1/")) expect(body.success).toBe(true);
    else if ((line as string).includes("/graphql")) {
      expect(body.errors).toBeUndefined();
      expect(body.data).toBeTruthy();
    } else {
      expect(body.jsonrpc).toBe("2.0");
      expect(body.result.isError).toBeFalsy();
      expect(body.result.structuredContent.success).toBe(true);
    }
    const shown = (command as Command).shown;
    if (shown?.lang === "json") expect(body).toEqual(JSON.parse(shown.text));
  });
});

describe("every npm run command, in a copy of the repository", () => {
  const npmRuns = commands.filter((c) => c.line.startsWith("npm run ") && !elsewhere(c.line));
  let copy: string;

  beforeAll(() => {
    copy = join(tempDir("docs-"), "repo");
    cpSync(ROOT, copy, {
      recursive: true,
      filter: (source) => !/\/(node_modules|\.git|data|artifacts|dist)$/.test(source),
    });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  });

  afterAll(() => {
    if (copy) rmSync(join(copy, ".."), { recursive: true, force: true });
  });

  it.each(npmRuns.map((c) => [c.page, c.line]))(
    "%s: %s",
    async (_page, line) => {
      const { stdout, stderr } = await run("bash", ["-c", line as string], { cwd: copy, timeout: 180_000 }).catch((error) => {
        throw new Error(`${line} failed: ${error.stderr || error.message}`);
      });
      expect(stderr.replace(/^(Loaded Prisma config|Prisma schema loaded).*\n/gm, ""), stdout).not.toMatch(/error|\n\s+at /i);
      // What it rewrites of the committed files is what is committed (the JSON as Biome formats it).
      const read = (root: string, file: string) => {
        const text = readFileSync(join(root, file), "utf8");
        return file.endsWith(".json") ? JSON.parse(text) : text;
      };
      for (const file of ["graphql/schema.graphql", "rest/openapi.json", "rest/examples.json"])
        expect(read(copy, file), file).toEqual(read(ROOT, file));
      if ((line as string).startsWith("npm run generate")) expect(existsSync(join(copy, "src/generated/prisma/client.ts"))).toBe(true);
    },
    180_000,
  );
});
