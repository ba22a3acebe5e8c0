/**
 * The official MCP Inspector's command line (`@modelcontextprotocol/inspector`)
 * against a gateway on a real socket, with keys, in both protocol eras: it lists the tools with
 * `--strict` (its check that tool schemas are portable to clients that read
 * only part of JSON Schema) and finds nothing; it calls every tool, checking
 * each result against the tool's output schema as its client does; and
 * without a key it reports the gateway's own message.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyStore } from "../../src/keys/store.js";
import { RateLimits } from "../../src/limits/rate-limits.js";
import { childEnv } from "../support/built.js";
import { canaryExport } from "../support/canary.js";
import { freshDatabase } from "../support/databases.js";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { type ListeningGateway, listen } from "../support/socket.js";

const CLI = join(
  import.meta.dirname,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "inspector",
  "clients",
  "cli",
  "build",
  "index.js",
);
/** The protocol eras the inspector negotiates: 2025 (`initialize`) and 2026-07-28 (`server/discover`). */
const ERAS = ["legacy", "modern"] as const;
/** The inspector's exit codes (its `EXIT_CODES`). */
const EXIT = { ok: 0, authRequired: 3, toolError: 5, schemaUnportable: 6 };

let t: TestGateway;
let socket: ListeningGateway;
let key = "";
const home = mkdtempSync(join(tmpdir(), "inspector-home-"));

beforeAll(async () => {
  const db = await freshDatabase();
  const store = new KeyStore(db);
  key = (await store.create({ name: "inspector", perMinute: 10_000 })).key;
  const limits = new RateLimits({ defaults: { perMinute: 60, perDay: 10_000 } });
  t = await testGateway(canaryExport(), { db, gateway: { auth: { keys: store, limits } } });
  socket = await listen(t.gateway);
});
afterAll(async () => {
  await socket?.close();
  await t?.close();
  rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the inspector's CLI against the gateway's `/mcp`, with its own home (no catalog, no stored sign-in). */
function inspector(args: string[], withKey = true): Promise<Run> {
  const all = [CLI, "--cli", `${socket.base}/mcp`, "--format", "json", "--stored-auth-only", ...args];
  if (withKey) all.push("--header", `Authorization: Bearer ${key}`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      all,
      { env: { ...childEnv(), HOME: home, MCP_INSPECTOR_SECRET_STORE: "memory" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("the MCP Inspector (2.x CLI)", () => {
  it.each(ERAS)(
    "lists the 11 tools with --strict and finds no portability problem (%s era)",
    async (era) => {
      const run = await inspector(["--protocol-era", era, "--method", "tools/list", "--strict"]);
      expect(run.stderr).not.toMatch(/Warning|Error:|Schema portability/);
      expect(run.code, run.stderr).toBe(EXIT.ok);
      const out = JSON.parse(run.stdout) as { result: { tools: { name: string }[] }; schemaFindings?: unknown };
      expect(out.schemaFindings).toBeUndefined();
      expect(out.result.tools).toHaveLength(11);
    },
    90_000,
  );

  it.each(ERAS)(
    "calls every tool, and each result passes its output schema (%s era)",
    async (era) => {
      const calls: [string, Record<string, unknown>][] = [
        ["list_universities", {}],
        ["list_courses", { page_size: 2, page: 1 }],
        ["get_course", { course_id: 1 }],
        ["get_course_stats", { group_by: "year" }],
        ["list_papers", {}],
        ["list_conferences", {}],
        ["get_school_environment", { school_ref: "NTU" }],
        ["get_school_environment_history", { school_ref: "NTU", days: 3 }],
        ["get_environment_snapshot", { limit: 2 }],
        ["list_hub_packs", { sort: "stars" }],
        ["get_hub_pack", { pack_id: "pk_public" }],
      ];
      const runs = await Promise.all(
        calls.map(([tool, args]) =>
          inspector(["--protocol-era", era, "--method", "tools/call", "--tool-name", tool, "--tool-args-json", JSON.stringify(args)]),
        ),
      );
      for (const [i, run] of runs.entries()) {
        expect(run.code, `${calls[i]![0]}: ${run.stderr}`).toBe(EXIT.ok);
        const { result } = JSON.parse(run.stdout) as { result: { structuredContent: { success: boolean }; isError?: boolean } };
        expect(result.isError, calls[i]![0]).toBeFalsy();
        expect(result.structuredContent.success).toBe(true);
      }
    },
    120_000,
  );

  it("reports a failure as a tool error with the REST body", async () => {
    const run = await inspector(["--method", "tools/call", "--tool-name", "list_courses", "--tool-args-json", '{"page_size":0}']);
    expect(run.code).toBe(EXIT.toolError);
    const { result } = JSON.parse(run.stdout) as { result: { structuredContent: unknown; isError: boolean } };
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { success: false, error: "page_size must be an integer from 1 to 100" },
    });
  }, 90_000);

  it("without a key, or with a wrong one, shows the gateway's message (and finds no OAuth to start)", async () => {
    const [none, wrong] = await Promise.all([
      inspector(["--method", "tools/list"], false),
      inspector(["--method", "tools/list", "--header", `Authorization: Bearer uedu_${"x".repeat(40)}`], false),
    ]);
    expect(none.code).toBe(EXIT.authRequired);
    expect(none.stderr).toContain("an API key is required: send Authorization: Bearer <API_KEY>");
    expect(wrong.code).toBe(EXIT.authRequired);
    expect(wrong.stderr).toContain("invalid or revoked API key");
    // Keys come from the "My API Keys" page: there is no OAuth metadata to discover.
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
    ]) {
      expect((await fetch(`${socket.base}${path}`)).status, path).toBe(404);
    }
  }, 90_000);
});
