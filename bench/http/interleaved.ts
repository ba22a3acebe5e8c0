/**
 * Two or more servers (or keys) driven side by side, so that a ratio between
 * them is measured in one run: every case on each in turn, round after
 * round, the order reversed every other round, and round 0 a warm-up that is
 * not kept. bench:against compares two builds this way, and
 * bench:restrictions two keys on one build.
 */
import type { Case } from "./cases.js";
import { answer } from "./load.js";
import { cpuMs } from "./process.js";
import { median } from "./results.js";
import { type Load, wrk } from "./wrk.js";

/** One side: its name, the process whose CPU is counted, and its request for a case. */
export interface Side {
  name: string;
  pid: number;
  load(c: Case): Load;
}

/** One kept round of one case on one side. */
export interface RoundFigures {
  perSecond: number;
  cpuMsPerRequest: number;
  p99Ms: number;
}

/** Medians of a case's kept rounds on one side. */
export type Medians = RoundFigures;

export interface InterleavedOptions {
  rounds: number;
  seconds: number;
  connections: number;
  /** Told after each step (one case on one side in one round). */
  onStep?: () => void;
}

/** The kept rounds of every case on every side, by `${case name}|${side name}`. */
export async function interleave(list: Case[], sides: Side[], options: InterleavedOptions): Promise<Map<string, RoundFigures[]>> {
  const rounds = new Map<string, RoundFigures[]>();
  for (let round = 0; round <= options.rounds; round++) {
    for (const c of list) {
      for (const side of round % 2 ? [...sides].reverse() : sides) {
        const load = side.load(c);
        const cpu = cpuMs(side.pid);
        const figures = await wrk(load, options.connections, round === 0 ? 1 : options.seconds);
        const used = cpuMs(side.pid) - cpu;
        // As in main.ts: one more request waits behind what wrk left queued.
        await answer(load);
        options.onStep?.();
        if (figures.errors > 0) throw new Error(`${c.name} on ${side.name}: ${figures.errors} failed requests`);
        if (round === 0) continue;
        const id = `${c.name}|${side.name}`;
        rounds.set(id, [
          ...(rounds.get(id) ?? []),
          { perSecond: figures.perSecond, cpuMsPerRequest: used / figures.requests, p99Ms: figures.p99Ms },
        ]);
      }
    }
  }
  return rounds;
}

/** The medians of case `name` on side `side`. */
function mediansOf(rounds: Map<string, RoundFigures[]>, name: string, side: string): Medians {
  const kept = rounds.get(`${name}|${side}`)!;
  return {
    perSecond: median(kept.map((r) => r.perSecond)),
    cpuMsPerRequest: median(kept.map((r) => r.cpuMsPerRequest)),
    p99Ms: median(kept.map((r) => r.p99Ms)),
  };
}

/** The geometric mean, for ratios over several cases. */
export const geometric = (xs: number[]) => Math.exp(xs.reduce((sum, x) => sum + Math.log(x), 0) / xs.length);

/**
 * How far apart two sides' rounds fall by chance: the 10th and 90th
 * percentiles of each round's ratio `after` ÷ `before`, over every case.
 */
export function pairSpread(rounds: Map<string, RoundFigures[]>, list: Case[], after: string, before: string): [number, number] {
  const pairs = list
    .flatMap((c) => {
      const a = rounds.get(`${c.name}|${after}`)!;
      const b = rounds.get(`${c.name}|${before}`)!;
      return a.map((round, i) => round.perSecond / b[i]!.perSecond);
    })
    .sort((x, y) => x - y);
  const at = (q: number) => pairs[Math.min(pairs.length - 1, Math.floor(pairs.length * q))]!;
  return [at(0.1), at(0.9)];
}

/** One case's medians on two sides, and `after` ÷ `before`. */
export interface Compared {
  name: string;
  before: Medians;
  after: Medians;
  perSecond: number;
  cpuMsPerRequest: number;
}

/** Case `name` on side `after` against side `before`. */
export function compared(rounds: Map<string, RoundFigures[]>, name: string, after: string, before: string): Compared {
  const a = mediansOf(rounds, name, after);
  const b = mediansOf(rounds, name, before);
  return { name, before: b, after: a, perSecond: a.perSecond / b.perSecond, cpuMsPerRequest: a.cpuMsPerRequest / b.cpuMsPerRequest };
}

/** A number as the tables print it. */
export const formatted = (x: number, digits = 0) =>
  x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A comparison's line of a Markdown table: `labels`, then req/s before, after and ÷, then CPU ms per request before, after and ÷. */
export function comparedLine(labels: string[], r: Compared): string {
  const n = formatted;
  const cells = [
    ...labels,
    n(r.before.perSecond),
    n(r.after.perSecond),
    n(r.perSecond, 3),
    n(r.before.cpuMsPerRequest, 3),
    n(r.after.cpuMsPerRequest, 3),
    n(r.cpuMsPerRequest, 3),
  ];
  return `| ${cells.join(" | ")} |`;
}
