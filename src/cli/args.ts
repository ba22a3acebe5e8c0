/**
 * How every command reads its command line (node's strict `util.parseArgs`),
 * so that all of them behave alike:
 *   - `--help` or `-h` anywhere before `--` prints the usage on standard
 *     output and exits 0, before anything else is read, opened or created;
 *   - an unknown option, an option without its value, or too many or too few
 *     arguments prints the problem and the usage on standard error and exits 2.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A command's command line. */
export interface CommandLine<O extends Options = Options> {
  /** The command's name as the user runs it (`keys`, `db:migrate`), the prefix of its usage errors. */
  name: string;
  /** The usage text: the synopsis lines, then what the command does. */
  usage: string;
  /** Its options, as `util.parseArgs` takes them (`--help` is added). */
  options: O;
  /** How many positional arguments it takes (default: none). */
  positionals?: { min: number; max: number };
}

type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** The answer to a command line that is not run: its usage (`--help`), or a usage error. */
export interface UsageAnswer {
  ok: false;
  /** 0 for `--help`, 2 for a usage error. */
  code: 0 | 2;
  stream: "out" | "err";
  text: string;
}

/** What a command line says: the arguments to run with, or the answer to give instead. */
export type ReadArgs<O extends Options> = { ok: true; values: Parsed<O>["values"]; positionals: string[] } | UsageAnswer;

/** `--help` or `-h` before any `--`. */
export function asksHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** Reads `args` by `line`; never exits, never prints. */
export function readArgs<O extends Options>(line: CommandLine<O>, args: readonly string[]): ReadArgs<O> {
  if (asksHelp(args)) return { ok: false, code: 0, stream: "out", text: `${line.usage}\n` };
  const refuse = (problem: string): ReadArgs<O> => ({
    ok: false,
    code: 2,
    stream: "err",
    text: `${line.name}: ${problem}\n${line.usage}\n`,
  });
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args: [...args], options: line.options, allowPositionals: true, strict: true });
  } catch (error) {
    return refuse((error as Error).message);
  }
  const { min, max } = line.positionals ?? { min: 0, max: 0 };
  const count = parsed.positionals.length;
  if (count > max) return refuse(max === 0 ? `unexpected argument ${JSON.stringify(parsed.positionals[0])}` : "too many arguments");
  if (count < min) return refuse("missing argument");
  return { ok: true, values: parsed.values, positionals: parsed.positionals };
}

/**
 * Reads this process's command line by `line`: on `--help` or a usage error
 * it answers and exits here (0 or 2); otherwise it returns the arguments.
 */
export function commandLine<O extends Options>(line: CommandLine<O>, args: readonly string[] = process.argv.slice(2)) {
  const read = readArgs(line, args);
  if (!read.ok) {
    (read.stream === "out" ? process.stdout : process.stderr).write(read.text);
    process.exit(read.code);
  }
  return read;
}

/**
 * An integer option of this process's command line, at least `min`; a usage
 * error (exit 2) otherwise. `undefined` stays undefined.
 */
export function integerOption<R extends string | undefined>(
  line: CommandLine,
  name: string,
  raw: R,
  min: number,
): R extends string ? number : undefined {
  if (raw === undefined) return undefined as R extends string ? number : undefined;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min) {
    process.stderr.write(`${line.name}: --${name} must be an integer of at least ${min}, got ${JSON.stringify(raw)}\n${line.usage}\n`);
    process.exit(2);
  }
  return Number(raw) as R extends string ? number : undefined;
}
