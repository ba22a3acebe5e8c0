/**
 * Semantic-version order (semver.org §11): numeric major.minor.patch, and a
 * pre-release below its release. `1.10.0` sorts above `1.9.0`.
 */
const PATTERN = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** Negative when a < b, positive when a > b, 0 when equal in precedence. */
export function compareSemver(a: string, b: string): number {
  const ma = PATTERN.exec(a);
  const mb = PATTERN.exec(b);
  if (!ma || !mb) throw new Error(`not a semantic version: ${ma ? b : a}`);
  for (let i = 1; i <= 3; i++) {
    const diff = Number(ma[i]) - Number(mb[i]);
    if (diff !== 0) return Math.sign(diff);
  }
  const pa = ma[4];
  const pb = mb[4];
  if (pa === pb) return 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  const ia = pa.split(".");
  const ib = pb.split(".");
  for (let i = 0; i < Math.max(ia.length, ib.length); i++) {
    const x = ia[i];
    const y = ib[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Math.sign(Number(x) - Number(y));
    if (nx) return -1;
    if (ny) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
