/**
 * Deterministic randomness for the demo export. Nothing in src/demo uses
 * the platform's unseeded generator: sequential draws come from a seeded mulberry32 generator, and
 * values that must depend only on "where and when" (observations) come from
 * stateless hashes of integers.
 */

/** mulberry32: tiny, fast, good enough for demo data. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 32-bit hash of a string (FNV-1a over UTF-16 code units, then finalised). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  return fmix32(h);
}

/** 32-bit hash of a sequence of integers (each taken modulo 2^32). */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = fmix32(Math.imul(h ^ (p >>> 0), 0x01000193) + 0x7f4a7c15);
  }
  return h;
}

/** Hash of integers mapped to [0, 1). */
export function hashUnit(...parts: number[]): number {
  return hash32(...parts) / 4294967296;
}

/**
 * Smooth 1-D value noise in [-1, 1]: random values at integer lattice points,
 * joined by a smoothstep. Depends only on (key, x).
 */
export function smoothNoise(key: number, x: number): number {
  const i = Math.floor(x);
  const f = x - i;
  const a = hashUnit(key, i) * 2 - 1;
  const b = hashUnit(key, i + 1) * 2 - 1;
  const s = f * f * (3 - 2 * f);
  return a + (b - a) * s;
}

export class Rng {
  private readonly draw: () => number;

  constructor(readonly seed: number) {
    this.draw = mulberry32(seed);
  }

  /** An independent stream named by label; does not depend on draws made so far. */
  derive(label: string): Rng {
    return new Rng(hash32(this.seed, hashString(label)));
  }

  /** Float in [0, 1). */
  next(): number {
    return this.draw();
  }

  /** Float in [min, max). */
  float(min: number, max: number): number {
    return min + (max - min) * this.draw();
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.draw() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.draw() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.draw() * items.length)] as T;
  }

  /** Pick with weights: [[value, weight], ...]. */
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let r = this.draw() * total;
    for (const [v, w] of items) {
      r -= w;
      if (r < 0) return v;
    }
    const last = items[items.length - 1];
    if (!last) throw new Error("weighted pick from an empty list");
    return last[0];
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const a = items.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.draw() * (i + 1));
      const t = a[i] as T;
      a[i] = a[j] as T;
      a[j] = t;
    }
    return a;
  }

  /** n distinct items (or all of them, shuffled, if n >= length). */
  sample<T>(items: readonly T[], n: number): T[] {
    return this.shuffle(items).slice(0, n);
  }

  /** Normal deviate (Box–Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.draw();
    const v = this.draw();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A string of `length` characters from `alphabet`. */
  string(length: number, alphabet: string): string {
    let s = "";
    for (let i = 0; i < length; i++) s += alphabet.charAt(Math.floor(this.draw() * alphabet.length));
    return s;
  }
}

export const UPPER_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
