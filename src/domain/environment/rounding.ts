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

/**
 * Where the fast path may be wrong: |x|·10^d computed by multiplication is
 * within about 1e-8 of the exact decimal shift while it is below 1e6, so only
 * a product within 1e-6 of a point where the result changes (a half for
 * rounding, an integer for truncation) needs the exact path.
 */
const FAST_BELOW = 1e6;
const NEAR = 1e-6;
const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** Whether `v` lies more than {@link NEAR} away from every `boundary` + integer. */
const clearOf = (v: number, boundary: number) => {
  const d = Math.abs(v - Math.floor(v) - boundary);
  return Math.min(d, 1 - d) > NEAR;
};

/**
 * Applies `op` to |x| shifted by `decimals` places, restores sign and scale;
 * never returns -0. `boundary` is where `op`'s result changes within each
 * unit (0.5 for rounding, 0 for truncation). Most values are shifted by
 * multiplying, which gives the same result there; the few near a boundary,
 * or large, go through the decimal text ({@link shiftDecimal}), and all of
 * them do without `fast`.
 */
function applyAtDecimals(x: number, decimals: number, op: (v: number) => number, boundary: number, fast = true): number {
  checkDecimals(decimals);
  if (!Number.isFinite(x)) return x;
  const sign = x < 0 ? -1 : 1;
  const abs = Math.abs(x);
  const scale = POW10[decimals]!;
  const scaled = abs * scale;
  // n / 10^d and the text `ne-d` are both the double nearest to n·10^-d: the same number.
  const result =
    fast && scaled < FAST_BELOW && clearOf(scaled, boundary)
      ? (sign * op(scaled)) / scale
      : sign * shiftDecimal(op(shiftDecimal(abs, decimals)), -decimals);
  return result === 0 ? 0 : result;
}

const halfUp = (v: number) => Math.floor(v + 0.5);

/** {@link roundHalfAwayFromZero} through the decimal text alone: the reference its fast path is tested against. */
export const roundHalfAwayFromZeroExactly = (x: number, decimals: number): number => applyAtDecimals(x, decimals, halfUp, 0.5, false);

/** {@link truncateDecimals} through the decimal text alone: the reference its fast path is tested against. */
export const truncateDecimalsExactly = (x: number, decimals: number): number => applyAtDecimals(x, decimals, Math.floor, 0, false);

/**
 * Rounds half away from zero to `decimals` places: 0.05 → 0.1, -0.05 → -0.1,
 * 2.675 → 2.68 (at 2 places), 1.005 → 1.01. NaN and ±Infinity are returned unchanged;
 * -0 and results that round to zero are returned as +0.
 * @throws RangeError if `decimals` is not an integer from 0 to 15.
 */
export function roundHalfAwayFromZero(x: number, decimals: number): number {
  return applyAtDecimals(x, decimals, halfUp, 0.5);
}

/**
 * Truncates toward zero to `decimals` places, free of float artefacts:
 * 9.1 → 9.1 (not 9.0), 35.49 → 35.4 at one place, 54.9 → 54 at zero places.
 * @throws RangeError if `decimals` is not an integer from 0 to 15.
 */
export function truncateDecimals(x: number, decimals: number): number {
  return applyAtDecimals(x, decimals, Math.floor, 0);
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
