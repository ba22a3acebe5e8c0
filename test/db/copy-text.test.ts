/**
 * COPY's text format (src/db/copy-text.ts) as the server reads it, through
 * Transaction.copyIn (src/db/driver.ts): every value comes back as it was
 * sent, whatever its characters, and a copy the server refuses rolls back.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { copyField, copyRow } from "../../src/db/copy-text.js";
import { type Database, openDatabase } from "../../src/db/driver.js";

let db: Database;
beforeAll(async () => {
  // Temporary tables only: the server's own database will do.
  db = await openDatabase({ databaseUrl: inject("postgresUrl") });
});
afterAll(async () => {
  await db?.close();
});

const TABLE = "CREATE TEMP TABLE t (i int, s text, f float8, b boolean, d timestamptz) ON COMMIT DROP";

interface Row {
  i: number;
  s: string | null;
  f: number | null;
  b: boolean | null;
  d: Date | null;
}

/** Sends `rows` with one copyIn, `chunks` lines at a time, and reads them back in order. */
function roundTrip(rows: readonly Row[], chunks = 1): Promise<Row[]> {
  return db.transaction(async (tx) => {
    await tx.exec(TABLE);
    const lines = rows.map((r) => copyRow([r.i, r.s, r.f, r.b, r.d]));
    const size = Math.max(1, Math.ceil(lines.length / chunks));
    const parts = Array.from({ length: Math.ceil(lines.length / size) }, (_, k) => lines.slice(k * size, (k + 1) * size).join(""));
    await tx.copyIn("COPY t (i, s, f, b, d) FROM STDIN", parts);
    return tx.query<Row>("SELECT i, s, f, b, d FROM t ORDER BY i");
  });
}

describe("a field", () => {
  it("escapes what would end a field or a row, and the backslash", () => {
    expect(copyField("a\tb\nc\rd\\e")).toBe("a\\tb\\nc\\rd\\\\e");
    expect(copyField("\\N")).toBe("\\\\N");
    expect(copyField("\\.")).toBe("\\\\.");
  });

  it("writes null and a missing value as \\N, a boolean as t or f, an instant in UTC, a number as JavaScript prints it", () => {
    expect([null, undefined, true, false].map(copyField)).toEqual(["\\N", "\\N", "t", "f"]);
    expect(copyField(new Date("2026-12-06T08:00:00+08:00"))).toBe("2026-12-06T00:00:00.000Z");
    expect([0, -0, 1.5, 1e21, 2 ** 53, 12n].map(copyField)).toEqual(["0", "0", "1.5", "1e+21", "9007199254740992", "12"]);
  });

  it("refuses what no column of the importer takes, naming it", () => {
    expect(() => copyField({ a: 1 })).toThrow("COPY text: a field cannot be a value of type object");
    expect(() => copyField([1])).toThrow("COPY text: a field cannot be an array");
    expect(() => copyField(Number.NaN)).toThrow("COPY text: NaN is not a finite number");
    expect(() => copyField(Number.POSITIVE_INFINITY)).toThrow("COPY text: Infinity is not a finite number");
  });
});

describe("Transaction.copyIn", () => {
  it("brings back every text, number, flag and instant as sent (any well-formed text without NUL)", async () => {
    const text = fc.string({ unit: "binary", maxLength: 40 }).filter((s) => !s.includes("\0"));
    const row = fc.record({
      s: fc.option(fc.oneof(text, fc.constantFrom("\\N", "\\.", "\\", "\t", "\n", "\r\n", "NULL", "")), { nil: null }),
      f: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
      b: fc.option(fc.boolean(), { nil: null }),
      d: fc.option(fc.date({ min: new Date("1900-01-01T00:00:00Z"), max: new Date("2200-01-01T00:00:00Z"), noInvalidDate: true }), {
        nil: null,
      }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 30 }), fc.integer({ min: 1, max: 4 }), async (values, chunks) => {
        const rows = values.map((v, i) => ({ i, ...v }));
        // -0 is stored as 0 by float8's text input as by JSON's; any other double exactly.
        const expected = rows.map((r) => ({ ...r, f: Object.is(r.f, -0) ? 0 : r.f }));
        expect(await roundTrip(rows, chunks)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });

  it("a field the server refuses fails the copy with the server's reason, and the transaction with it", async () => {
    const rows: [number, string][] = [];
    const failed = await db
      .transaction(async (tx) => {
        await tx.exec(TABLE);
        await tx.copyIn("COPY t (i, s) FROM STDIN", [copyRow([1, "kept?"]), "two\tthree\n"]);
        rows.push(...(await tx.query<{ i: number; s: string }>("SELECT i, s FROM t")).map((r) => [r.i, r.s] as [number, string]));
      })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toMatch(/invalid input syntax for type integer: "two"/);
    expect(rows).toEqual([]);
    // The pool's connection is clean after it.
    expect(await db.query<{ one: number }>("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  it("a source that fails mid-way cancels the copy with its error", async () => {
    async function* source() {
      yield copyRow([1, "a"]);
      throw new Error("the export's stream broke");
    }
    await expect(
      db.transaction(async (tx) => {
        await tx.exec(TABLE);
        await tx.copyIn("COPY t (i, s) FROM STDIN", source());
      }),
    ).rejects.toThrow("the export's stream broke");
    expect(await db.query<{ one: number }>("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });
});
