/**
 * `npm run ingest -- --source cwa|moenv|nws|airnow [--sites <file>] <file|->`:
 * stores one payload of a government agency's own format (src/ingest/) in
 * the configured database, migrating it first. Unlike `import`, a bad record
 * is skipped and reported (on standard error, with its position and reason)
 * while the rest is stored. Exit 0 when the payload was read (whatever was
 * skipped), 1 when it is not the agency's format at all (nothing stored), 2 on
 * a usage error.
 */
import { readFile } from "node:fs/promises";
import { ConfigError, loadConfig } from "../../config.js";
import { StationSource } from "../../generated/prisma/enums.js";
import { readAirNow, readAirNowSites } from "../../ingest/airnow.js";
import { readCwa } from "../../ingest/cwa.js";
import { type Feed, FeedError, type Skipped } from "../../ingest/feed.js";
import { readMoenv } from "../../ingest/moenv.js";
import { readNws } from "../../ingest/nws.js";
import { type IngestSummary, storeFeed } from "../../ingest/store.js";
import { phaseSpans } from "../../observe/tracing.js";
import { readArgs } from "../args.js";
import { LINE } from "../lines/ingest.js";
import { answerUsage, type Command, type CommandSpec, oneLine } from "../command.js";

const SOURCES: readonly StationSource[] = Object.values(StationSource);
/** Records reported one by one on standard error; the rest are counted. */
const SHOWN = 100;
const n = (value: number) => value.toLocaleString("en-US");

function summaryLine(s: IngestSummary, seconds: number): string {
  const skipped = Object.values(s.skipped).reduce((a, b) => a + b, 0);
  const reasons = Object.entries(s.skipped)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([reason, count]) => `${reason} ${n(count)}`)
    .join(", ");
  return (
    `ingested ${s.source}: read ${n(s.read)}, stored ${n(s.stored)}, unchanged ${n(s.unchanged)}, ` +
    `skipped ${n(skipped)}${reasons ? ` (${reasons})` : ""}; stations added ${n(s.stations.added)}, changed ${n(s.stations.changed)}` +
    `${s.completed ? `; precipitation completed for ${n(s.completed)} later hours` : ""} in ${seconds.toFixed(1)} s`
  );
}

function report(io: Parameters<Command>[1], problems: readonly Skipped[]): void {
  for (const p of problems.slice(0, SHOWN)) io.err(`skipped ${p.position || "payload"}: ${p.reason}: ${p.detail}\n`);
  if (problems.length > SHOWN) io.err(`… and ${n(problems.length - SHOWN)} more skipped\n`);
}

/** The largest payload read: thirty times a whole CWA O-A0001-001 (about 2 MB), far below what JSON.parse can hold. */
const MAX_PAYLOAD_BYTES = 64 * 2 ** 20;

/** Reads the whole payload as JSON. */
async function readPayload(input: AsyncIterable<Buffer>): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of input) {
    bytes += chunk.length;
    if (bytes > MAX_PAYLOAD_BYTES)
      throw new FeedError(`the payload is larger than ${MAX_PAYLOAD_BYTES / 2 ** 20} MiB: no agency sends one so large`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (error) {
    throw new FeedError(`the payload is not JSON: ${oneLine(error)}`);
  }
}

async function readFeed(source: StationSource, payload: unknown, sitesPath: string | undefined): Promise<Feed> {
  switch (source) {
    case "cwa":
      return readCwa(payload);
    case "moenv":
      return readMoenv(payload);
    case "nws":
      return readNws(payload);
    case "airnow": {
      const text = await readFile(sitesPath!, "utf8").catch((error: NodeJS.ErrnoException) => {
        throw new FeedError(`cannot read the site list ${sitesPath}: ${error.code === "ENOENT" ? "no such file" : oneLine(error)}`);
      });
      const { sites, skipped } = readAirNowSites(text);
      const feed = readAirNow(payload, sites);
      feed.skipped.unshift(...skipped);
      return feed;
    }
  }
}

/** The query parameter of its URL that each agency takes its API key in (NWS asks for none). */
const KEY_PARAMETER: Partial<Record<StationSource, string>> = { cwa: "Authorization", moenv: "api_key", airnow: "API_KEY" };

/** The configured URL of an agency's payload, its key added. Throws a ConfigError naming what is missing. */
function fetchUrl(source: StationSource): string {
  const { urls, keys } = loadConfig().ingest;
  const variable = `INGEST_${source.toUpperCase()}`;
  const url = urls[source];
  if (!url) throw new ConfigError(`--fetch needs ${variable}_URL, the agency's URL`);
  const parameter = KEY_PARAMETER[source];
  if (!parameter) return url;
  const key = keys[source as keyof typeof keys];
  if (!key) throw new ConfigError(`--fetch needs ${variable}_KEY, the agency's API key`);
  const withKey = new URL(url);
  withKey.searchParams.set(parameter, key);
  return withKey.toString();
}

/** The input a command line names: a file, `-`, or the agency's URL with --fetch. */
function inputPath(read: { values: { fetch?: boolean; source?: string }; positionals: string[] }): string | undefined {
  if (read.values.fetch) return read.positionals.length === 0 ? fetchUrl(read.values.source as StationSource) : undefined;
  return read.positionals[0] !== "" ? read.positionals[0] : undefined;
}

const ingestCli: Command = async (args, io, withDatabase) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  const source = read.values.source as StationSource | undefined;
  const refuse = (problem: string) => answerUsage(io, { ok: false, code: 2, stream: "err", text: `ingest: ${problem}\n${LINE.usage}\n` });
  if (source === undefined || !SOURCES.includes(source)) {
    return refuse(`--source must be one of ${SOURCES.join(", ")}, got ${JSON.stringify(source ?? null)}`);
  }
  if ((source === "airnow") !== (read.values.sites !== undefined)) {
    return refuse(source === "airnow" ? "--sites <file> is required with --source airnow" : "--sites goes with --source airnow only");
  }
  if (read.values.fetch === read.positionals.length > 0) {
    return refuse(read.values.fetch ? "--fetch takes no file" : "give a file, - for standard input, or --fetch");
  }
  const path = inputPath(read);
  if (path === undefined) return refuse("the file name is empty");
  const started = performance.now();
  // With tracing on, a span for each phase; the ingest draws no progress.
  const spans = phaseSpans("ingest");
  const phases = spans && { phase: (name: string) => spans.phase(name), set() {}, rows() {} };
  spans?.phase("reading");
  const { input, readError } = await io.openInput(path);
  try {
    const payload = await readPayload(input).catch((error: unknown) => {
      throw readError() ?? error;
    });
    const feed = await readFeed(source, payload, read.values.sites);
    const summary = await withDatabase(async (db, applied) => {
      for (const name of applied) io.err(`applied migration ${name}\n`);
      return storeFeed(db, feed, phases);
    }, phases);
    spans?.end();
    report(io, summary.problems);
    io.out(`${summaryLine(summary, (performance.now() - started) / 1000)}\n`);
    return 0;
  } catch (error) {
    spans?.end(true);
    throw error;
  } finally {
    input.destroy();
  }
};

export const ingestCommand: CommandSpec = {
  name: "ingest",
  prefix: "ingest failed",
  run: ingestCli,
};
