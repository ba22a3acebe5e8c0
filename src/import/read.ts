/**
 * Streams a platform export: each record of each section is handed over as
 * soon as it is parsed, so an export of millions of observations never sits
 * in memory as a whole.
 */
import type { Duplex, Readable } from "node:stream";
import { parser } from "stream-json";
import Assembler from "stream-json/assembler.js";
import { ImportError, SECTIONS, type SectionName } from "./records.js";

/** Receives the parts of an export as they are read. */
export interface ExportVisitor {
  /** A top-level value that is not a record section (`format`, `exported_at`, ...). */
  header(key: string, value: unknown): void | Promise<void>;
  /** One raw record of a section, with its index in that section. */
  record(section: SectionName, index: number, value: unknown): void | Promise<void>;
  /** The bytes read so far, after each chunk. */
  bytes?(read: number): void;
}

interface Token {
  name: string;
  value?: unknown;
}

const isSection = (key: string): key is SectionName => Object.hasOwn(SECTIONS, key);

/**
 * An export whose records are values of this process already (the demo
 * data, generated here), handed over without their JSON text: its headers
 * and records as `readExport` would parse them from that text, in the same
 * order.
 */
export interface ExportRecords {
  /** Calls `visitor` for each header and record in document order, awaiting what it returns before the next. */
  visit(visitor: ExportVisitor): Promise<void>;
}

/** What an import reads: an export's JSON text, or its records. */
export type ExportSource = Readable | ExportRecords;

/** Reads `source` into `visitor`: its text through `readExport`, or its records as they are. */
export function readSource(source: ExportSource, visitor: ExportVisitor): Promise<void> {
  return "visit" in source ? source.visit(visitor) : readExport(source, visitor);
}

/**
 * Reads the whole export from `input`, calling `visitor` in document order.
 * The tokens are taken from the parser synchronously, as many as it holds,
 * and the reader waits only for more input or for a visitor that returned a
 * promise (a batch being written): an await per token (over a million for
 * the demo data) cost more than parsing them.
 */
export async function readExport(input: Readable, visitor: ExportVisitor): Promise<void> {
  const tokens = input.pipe(parser.asStream({ packValues: true, streamValues: false }));
  // Watching the chunks that pipe() hands on (a second 'data' listener takes nothing from it).
  let read = 0;
  if (visitor.bytes) {
    input.on("data", (chunk: Buffer) => {
      read += chunk.length;
      visitor.bytes?.(read);
    });
  }
  // pipe() does not pass the source's failure on: end the token stream with it.
  let inputError: Error | undefined;
  input.once("error", (error: Error) => {
    inputError = error;
    tokens.destroy(error);
  });
  let depth = 0;
  let key: string | null = null;
  let section: SectionName | null = null;
  let index = 0;
  let asm: Assembler | null = null;
  let sawRoot = false;

  /** Takes one token; returns what a visitor returned, to be awaited before the next. */
  const take = (token: Token): void | Promise<void> => {
    if (!asm) {
      if (depth === 0) {
        if (token.name !== "startObject" || sawRoot) throw new ImportError("the export must be one JSON object");
        sawRoot = true;
        depth = 1;
        return;
      }
      if (depth === 1) {
        if (token.name === "endObject") {
          depth = 0;
          return;
        }
        if (token.name === "keyValue") {
          key = String(token.value);
          return;
        }
        if (key !== null && isSection(key)) {
          if (token.name === "nullValue") {
            key = null;
            return;
          }
          if (token.name !== "startArray") throw new ImportError(`${key}: expected an array`);
          section = key;
          index = 0;
          depth = 2;
          return;
        }
      } else if (token.name === "endArray") {
        // depth 2: the end of a section's array
        section = null;
        key = null;
        depth = 1;
        return;
      }
      // A value begins: a header's (depth 1) or a record of the section (depth 2).
      asm = new Assembler();
    }
    asm.consume(token as never);
    if (!asm.done) return;
    const value = asm.current;
    asm = null;
    if (section) return visitor.record(section, index++, value);
    const header = key;
    key = null;
    if (header !== null) return visitor.header(header, value);
  };

  try {
    for (;;) {
      const token = tokens.read() as Token | null;
      if (token !== null) {
        const pending = take(token);
        if (pending) await pending;
        continue;
      }
      if (tokens.errored) throw tokens.errored;
      if (tokens.readableEnded || tokens.destroyed) break;
      await more(tokens);
    }
  } catch (error) {
    if (inputError) throw inputError;
    if (error instanceof ImportError) throw error;
    throw new ImportError(`the export is not valid JSON: ${(error as Error).message}`);
  } finally {
    input.unpipe(tokens);
  }
  if (!sawRoot || depth !== 0) throw new ImportError("the export ended before its closing brace");
}

/** Resolves when `stream` has more to read, has ended or has closed; rejects with its error. */
function more(stream: Duplex): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      stream.off("readable", done).off("end", done).off("close", done).off("error", failed);
      resolve();
    };
    const failed = (error: Error) => {
      done();
      reject(error);
    };
    stream.on("readable", done).on("end", done).on("close", done).on("error", failed);
  });
}
