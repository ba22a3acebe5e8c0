/** A position in WGS84 decimal degrees. */
export interface LatLon {
  readonly latitude: number;
  readonly longitude: number;
}

/** IUGG mean Earth radius, in metres (6371.0088 km), as docs/contract.md §5 prescribes. */
export const EARTH_RADIUS_M = 6_371_008.8;

const toRad = (deg: number): number => (deg * Math.PI) / 180;

/**
 * Great-circle distance between two points by the haversine formula, in metres:
 * a = sin²(Δφ/2) + cos φ₁·cos φ₂·sin²(Δλ/2); d = 2R·atan2(√a, √(1−a)).
 * Inputs are not validated; NaN in gives NaN out.
 */
export function haversineMeters(a: LatLon, b: LatLon): number {
  const phi1 = toRad(a.latitude);
  const phi2 = toRad(b.latitude);
  const dPhi = phi2 - phi1;
  const dLambda = toRad(b.longitude - a.longitude);
  const h = Math.sin(dPhi / 2) ** 2 + Math.cos(phi1) * Math.cos(phi2) * Math.sin(dLambda / 2) ** 2;
  // Clamp: rounding can push h a hair above 1 for antipodal points.
  const hc = Math.min(1, Math.max(0, h));
  return 2 * EARTH_RADIUS_M * Math.atan2(Math.sqrt(hc), Math.sqrt(1 - hc));
}
