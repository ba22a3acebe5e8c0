/** One station's reading of one metric, at its distance from the school. */
export interface IdwSample {
  readonly stationId: string;
  /** Distance from the school in metres (finite, ≥ 0). */
  readonly distanceM: number;
  /** The metric's value; null, undefined or NaN means the station has no value for it. */
  readonly value: number | null | undefined;
}

/** A station that received weight, with its normalised weight (all weights sum to 1). */
export interface IdwUse<S extends IdwSample = IdwSample> {
  readonly stationId: string;
  readonly distanceM: number;
  readonly weight: number;
  /** The input sample itself, so callers can recover extra fields such as `source`. */
  readonly sample: S;
}

/** IDW outcome: the weighted mean (unrounded) and the stations that had weight, nearest first. */
export interface IdwResult<S extends IdwSample = IdwSample> {
  readonly value: number | null;
  readonly used: IdwUse<S>[];
}

/** Options for {@link idw}. */
export interface IdwOptions {
  /** How many nearest stations with a value to use; default 3. */
  readonly k?: number;
}

/** Distances below this (metres) count as "at the school": that station takes all the weight. */
const IDW_SNAP_DISTANCE_M = 1;

const hasValue = (s: IdwSample): boolean => s.value != null && !Number.isNaN(s.value);

/**
 * Shepard inverse-distance weighting (power 2) over the `k` nearest samples that have
 * a value (docs/contract.md §5). Samples without a value are skipped before choosing, so the
 * next-nearest station takes a missing station's place.
 *
 * - Order: by distance, ties broken by `stationId` (code-unit order) so results are stable.
 * - A station closer than 1 m takes all the weight. If several are closer than 1 m,
 *   the nearest of them (then the lowest `stationId`) wins alone; the rest get no weight.
 * - Fewer than `k` samples with values: those there are. None: `{ value: null, used: [] }`.
 *
 * @throws RangeError if `k` is not a positive integer or a distance is negative or not finite.
 */
export function idw<S extends IdwSample>(samples: readonly S[], opts: IdwOptions = {}): IdwResult<S> {
  const k = opts.k ?? 3;
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  for (const s of samples) {
    if (!Number.isFinite(s.distanceM) || s.distanceM < 0) {
      throw new RangeError(`station ${s.stationId}: distanceM must be finite and >= 0, got ${s.distanceM}`);
    }
  }
  const nearest = samples
    .filter(hasValue)
    .sort((a, b) => a.distanceM - b.distanceM || (a.stationId < b.stationId ? -1 : a.stationId > b.stationId ? 1 : 0))
    .slice(0, k);

  const first = nearest[0];
  if (first === undefined) return { value: null, used: [] };
  if (first.distanceM < IDW_SNAP_DISTANCE_M) {
    return { value: first.value as number, used: [use(first, 1)] };
  }

  const raw = nearest.map((s) => 1 / (s.distanceM * s.distanceM));
  const total = raw.reduce((sum, w) => sum + w, 0);
  const used = nearest.map((s, i) => use(s, (raw[i] as number) / total));
  const value = used.reduce((sum, u) => sum + u.weight * (u.sample.value as number), 0);
  return { value, used };
}

function use<S extends IdwSample>(sample: S, weight: number): IdwUse<S> {
  return { stationId: sample.stationId, distanceM: sample.distanceM, weight, sample };
}
