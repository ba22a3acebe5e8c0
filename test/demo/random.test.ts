import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Rng, hash32, hashUnit, mulberry32, smoothNoise } from "../../src/demo/index.js";

describe("demo randomness", () => {
  it("mulberry32 is deterministic and uniform-ish", () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
    expect(mulberry32(43)()).not.toBe(mulberry32(42)());
  });

  it("helpers stay in range", () => {
    const rng = new Rng(7);
    for (let i = 0; i < 1000; i++) {
      const n = rng.int(3, 5);
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(5);
      const f = rng.float(-2, 2);
      expect(f).toBeGreaterThanOrEqual(-2);
      expect(f).toBeLessThan(2);
      expect(["a", "b"]).toContain(rng.pick(["a", "b"]));
      expect(smoothNoise(9, i / 7)).toBeGreaterThanOrEqual(-1);
      expect(smoothNoise(9, i / 7)).toBeLessThanOrEqual(1);
    }
    const items = Array.from({ length: 50 }, (_, i) => i);
    const shuffled = rng.shuffle(items);
    expect(shuffled).not.toEqual(items);
    expect([...shuffled].sort((x, y) => x - y)).toEqual(items);
    expect(new Set(rng.sample(items, 10)).size).toBe(10);
    expect(rng.string(6, "AB")).toMatch(/^[AB]{6}$/);
    expect(() => rng.pick([])).toThrow();
  });

  it("derived streams do not depend on draws already made", () => {
    const a = new Rng(1);
    const b = new Rng(1);
    b.next();
    b.next();
    expect(a.derive("x").next()).toBe(b.derive("x").next());
    expect(a.derive("x").next()).not.toBe(a.derive("y").next());
  });

  it("hashes are pure functions of their inputs", () => {
    expect(hash32(1, 2, 3)).toBe(hash32(1, 2, 3));
    expect(hash32(1, 2, 3)).not.toBe(hash32(1, 3, 2));
    expect(hashUnit(5, 6)).toBeLessThan(1);
  });

  it("no Math.random anywhere in src/demo", () => {
    const dir = join(import.meta.dirname, "../../src/demo");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      expect(readFileSync(join(dir, file), "utf8"), file).not.toMatch(/Math\.random/);
    }
  });
});
