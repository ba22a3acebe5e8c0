/**
 * The type check of `npm test`, `npm run typecheck` and `npm run build`
 * (scripts/typecheck.mjs): TypeScript 7's compiler, which fails on a type
 * error with the error's place and passes the same project without it.
 */
import { execFile } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp.js";

const { typecheckCommand } = (await import(new URL("../scripts/typecheck.mjs", import.meta.url).href)) as {
  typecheckCommand(): [string, ...string[]];
};

const project = tempDir("typecheck-");
afterAll(() => rmSync(project, { recursive: true, force: true }));
writeFileSync(
  join(project, "tsconfig.json"),
  JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", types: [] }, include: ["*.ts"] }),
);

/** The check of the temporary project: its exit code and what it printed. */
async function check(source: string): Promise<{ code: number; output: string }> {
  writeFileSync(join(project, "a.ts"), source);
  const [program, ...args] = typecheckCommand();
  return promisify(execFile)(program, [...args, "-p", join(project, "tsconfig.json")]).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
}

describe("the type check", () => {
  it("is TypeScript 7's", async () => {
    const [program, ...args] = typecheckCommand();
    const { stdout } = await promisify(execFile)(program, [args[0]!, "--version"]);
    expect(stdout).toMatch(/^Version 7\./);
  });

  it("fails on a type error, naming its file, line and column", async () => {
    const failed = await check('export const count: number = "one";\n');
    expect(failed.code).not.toBe(0);
    expect(failed.output).toMatch(/a\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'\./);
  });

  it("passes the same file without it", async () => {
    expect(await check("export const count: number = 1;\n")).toEqual({ code: 0, output: "" });
  });
});
