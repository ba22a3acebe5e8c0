import type { StationRef } from "./sources.js";

/** Collects distinct stations (by source and id) in a stable order: by source, then station id. */
export class StationSet {
  readonly #byKey = new Map<string, StationRef>();

  /** Adds stations; a station already present is ignored. */
  add(...refs: readonly StationRef[]): this {
    for (const { stationId, source } of refs) {
      this.#byKey.set(`${source}\u0000${stationId}`, { stationId, source });
    }
    return this;
  }

  /** The stations, sorted by source then station id (code-unit order). */
  toArray(): StationRef[] {
    return [...this.#byKey.keys()].sort().map((k) => this.#byKey.get(k) as StationRef);
  }
}
