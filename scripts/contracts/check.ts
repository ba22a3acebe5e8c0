/**
 * `npm run contracts:check`: the breaking-change check of ./guard.ts, as
 * `npm test` runs it, and with what the service records of its use
 * (docs/usage.md): a breaking change to a coordinate some key used in the
 * last `--days` (default 30), or one that makes a trusted document invalid,
 * is refused, each on a line of its own. Exit 0, 1 when something is
 * refused, 2 for a usage error.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type CommandLine, readArgs } from "../../src/cli/args.js";
import { answerUsage, type Command, type CommandSpec } from "../../src/cli/command.js";
import { runEntry } from "../../src/cli/entry.js";
import type { RecentUse } from "./guard.js";

const LINE = {
  name: "contracts:check",
  usage: `usage: npm run contracts:check -- [--usage | --usage-file FILE] [--days N] [--trusted-documents FILE]

Compares graphql/schema.graphql and rest/openapi.json with the released ones,
as npm test does: every change listed in CHANGELOG.md, a breaking one only
after the released contract deprecated it. Also refuses a breaking change to
what a key used in the last N days (default 30), from:

  --usage              the service's database (DATABASE_URL, or the embedded one in DATA_DIR)
  --usage-file FILE    a file written by npm run usage -- --json --since DATE
  USAGE_DATABASE_URL   (set in the environment) another database's usage_day

and one that makes a document of --trusted-documents FILE (or TRUSTED_DOCUMENTS)
invalid. Exit 0 when nothing is refused, 1 when something is (one line each).`,
  options: {
    usage: { type: "boolean", default: false },
    "usage-file": { type: "string" },
    days: { type: "string" },
    "trusted-documents": { type: "string" },
  },
} satisfies CommandLine;

const ROOT = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

const check: Command = async (args, io, withDatabase) => {
  const parsed = readArgs(LINE, args);
  if (!parsed.ok) return answerUsage(io, parsed);
  const { values } = parsed;
  // Loaded once the command line is read: --help and a wrong option answer without them.
  const { trustedEntries } = await import("../../src/plugins/persisted-documents.js");
  const { coordinatesUsed, daysBefore } = await import("../../src/usage/report.js");
  const { graphqlChanges, openapiChanges, recentUse, refusals, releasedVersion, trustedDocumentRefusals, usageRefusals } = await import(
    "./guard.js"
  );
  const refuse = (problem: string) => {
    io.err(`contracts:check: ${problem}\n${LINE.usage}\n`);
    return 2;
  };
  const days = values.days ?? "30";
  if (!/^\d{1,3}$/.test(days) || Number(days) < 1 || Number(days) > 400)
    return refuse(`--days must be an integer from 1 to 400, got ${JSON.stringify(days)}`);
  if (values.usage && values["usage-file"] !== undefined) return refuse("give --usage or --usage-file, not both");
  const since = daysBefore(new Date(), Number(days) - 1);

  const [releasedSdl, currentSdl] = [read("graphql/schema.released.graphql"), read("graphql/schema.graphql")];
  const changes = [
    ...(await graphqlChanges(releasedSdl, currentSdl)),
    ...openapiChanges(JSON.parse(read("rest/openapi.released.json")), JSON.parse(read("rest/openapi.json"))),
  ];
  const found = refusals(changes, read("CHANGELOG.md"), releasedVersion(releasedSdl));
  let used: RecentUse[] | undefined;
  if (values.usage) used = await withDatabase((db) => coordinatesUsed(db, { since }));
  else used = await recentUse({ USAGE_FILE: values["usage-file"], USAGE_DATABASE_URL: process.env.USAGE_DATABASE_URL }, since);
  if (used) found.push(...usageRefusals(changes, used, since));
  const trusted = values["trusted-documents"] ?? process.env.TRUSTED_DOCUMENTS;
  if (trusted) found.push(...trustedDocumentRefusals(currentSdl, trustedEntries(trusted)));

  const against = [used ? `the use since ${since}` : "", trusted ? "the trusted documents" : ""].filter(Boolean).join(" and ");
  if (found.length === 0) {
    io.out(
      `contracts:check: ${changes.length} change(s) since the released contracts, none refused${against ? `, against ${against}` : ""}\n`,
    );
    return 0;
  }
  for (const line of found) io.err(`${line}\n`);
  io.err(`contracts:check: ${found.length} refused\n`);
  return 1;
};

const contractsCheckCommand: CommandSpec = { name: "contracts:check", prefix: "contracts:check failed", run: check };

await runEntry(LINE, async () => contractsCheckCommand);
