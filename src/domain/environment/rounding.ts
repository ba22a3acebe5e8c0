/**
 * Decimal rounding that behaves the way a person reading the numbers expects.
 *
 * Binary floating point cannot hold most decimal fractions exactly: `2.675` is
 * stored as 2.67499999999999982236431605997495353221893310546875, and
 * `1.005 * 100` evaluates to 100.49999999999999. Rounding such values naively
 * gives 2.67 and 1.00. To avoid that, every value is first reduced to 15
 * significant decimal digits (`toPrecision(15)`, the precision a double is
 * guaranteed to round-trip) and the decimal point is then moved by editing the
 * exponent of that decimal text, never by multiplying. Values within about one
 * part in 10^15 of a half are therefore treated as exactly the half, which is
 * the small epsilon that also absorbs noise from earlier arithmetic (IDW sums).
 */

/** Moves the decimal point of |x| by `shift` places, exactly, via its 15-digit decimal text. */
function shiftDecimal(abs: number, shift: number): number {
  const [mantissa, exponent = "0"] = abs.toPrecision(15).split("e");
  return Number(`${mantissa}e${Number(exponent) + shift}`);
}

function checkDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 15) {
    throw new RangeError(`decimals must be an integer from 0 to 15, got ${decimals}`);
  }
}

/** Applies `op` to |x| shifted by `decimals` places, restores sign and scale; never returns -0. */
function applyAtDecimals(x: number, decimals: number, op: (v: number) => number): number {
  checkDecimals(decimals);
  if (!Number.isFinite(x)) return x;
  const sign = x < 0 ? -1 : 1;
  const scaledInt = op(shiftDecimal(Math.abs(x), decimals));
  const result = sign * shiftDecimal(scaledInt, -decimals);
  return result === 0 ? 0 : result;
}

/**
 * Rounds half away from zero to `decimals` places: 0.05 → 0.1, -0.05 → -0.1,
 * 2.675 → 2.68 (at 2 places), 1.005 → 1.01. NaN and ±Infinity are returned unchanged;
 * -0 and results that round to zero are returned as +0.
 * @throws RangeError if `decimals` is not an integer from 0 to 15.
 */
export function roundHalfAwayFromZero(x: number, decimals: number): number {
  return applyAtDecimals(x, decimals, (v) => Math.floor(v + 0.5));
}

/**
 * Truncates toward zero to `decimals` places, free of float artefacts:
 * 9.1 → 9.1 (not 9.0), 35.49 → 35.4 at one place, 54.9 → 54 at zero places.
 * @throws RangeError if `decimals` is not an integer from 0 to 15.
 */
export function truncateDecimals(x: number, decimals: number): number {
  return applyAtDecimals(x, decimals, Math.floor);
}

/** Rounds to one decimal, half away from zero (docs/contract.md §5: everything but AQI). */
export function round1(x: number): number;
export function round1(x: number | null | undefined): number | null;
export function round1(x: number | null | undefined): number | null {
  return x == null ? null : roundHalfAwayFromZero(x, 1);
}

/** Rounds to an integer, half away from zero (docs/contract.md §5: AQI values). */
export function roundInt(x: number): number;
export function roundInt(x: number | null | undefined): number | null;
export function roundInt(x: number | null | undefined): number | null {
  return x == null ? null : roundHalfAwayFromZero(x, 0);
}
