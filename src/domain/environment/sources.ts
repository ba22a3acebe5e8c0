/** Identifiers of the public observation networks the gateway draws on. */
export type SourceId = "cwa" | "moenv" | "nws" | "airnow";
/** What a station measures: weather (temperature, humidity, rain) or air quality. */
export type StationKind = "weather" | "air";

/** A catalogue entry for one source. */
export interface SourceInfo {
  readonly id: SourceId;
  readonly name: string;
  readonly kind: StationKind;
  /** ISO 3166-1 alpha-2 country the network covers. */
  readonly country: "TW" | "US";
}

/** The four sources, by id, with their official English names. */
export const SOURCES: Readonly<Record<SourceId, SourceInfo>> = {
  cwa: { id: "cwa", name: "Central Weather Administration (Taiwan)", kind: "weather", country: "TW" },
  moenv: { id: "moenv", name: "Ministry of Environment (Taiwan)", kind: "air", country: "TW" },
  nws: { id: "nws", name: "National Weather Service (United States)", kind: "weather", country: "US" },
  airnow: { id: "airnow", name: "AirNow (U.S. Environmental Protection Agency)", kind: "air", country: "US" },
};

/** Narrows a string (say, from the database) to a known {@link SourceId}. */
export function isSourceId(id: string): id is SourceId {
  return Object.hasOwn(SOURCES, id);
}

/** A station identified within its source (ids are only unique per source). */
export interface StationRef {
  readonly stationId: string;
  readonly source: SourceId;
}

/** One `data_sources` entry of a response (docs/contract.md §5). */
export interface DataSource {
  readonly id: SourceId;
  readonly name: string;
  readonly kind: StationKind;
  readonly stationIds: string[];
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The `data_sources` of a response: one entry per source among `used` (the stations that had
 * weight), sorted by id, each with its distinct station ids sorted by UTF-16 code units
 * (plain string order, so "10" sorts before "2"). An empty input gives an empty list.
 * @throws RangeError for a source id outside the catalogue.
 */
export function dataSources(used: Iterable<StationRef>): DataSource[] {
  const ids = new Map<SourceId, Set<string>>();
  for (const { source, stationId } of used) {
    if (!isSourceId(source)) throw new RangeError(`unknown source ${JSON.stringify(source)}`);
    let set = ids.get(source);
    if (set === undefined) {
      set = new Set();
      ids.set(source, set);
    }
    set.add(stationId);
  }
  return [...ids.keys()].sort(byCodeUnits).map((id) => ({
    id,
    name: SOURCES[id].name,
    kind: SOURCES[id].kind,
    stationIds: [...(ids.get(id) ?? [])].sort(byCodeUnits),
  }));
}
