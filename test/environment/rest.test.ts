/**
 * The environment operations of the v1 REST contract (seed operations 7–9,
 * docs/contract.md §2 and §5): school references, parameter ranges and messages,
 * defaults, region filtering, envelopes and the exact shapes, every key
 * present with nulls kept. Expected bodies come from the independent
 * reference in ./expected.ts, whose numbers taiwan.test.ts checks by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestGateway, testGateway } from "../support/gateway.js";
import { Reference } from "./expected.js";
import {
  DAILY_KEYS,
  day,
  FILLER_IDS,
  FILLER_REGIONS,
  HISTORY_KEYS,
  movableClock,
  NEXT_DAY,
  NOW,
  NTU,
  REALTIME_KEYS,
  rest,
  SCHOOL_KEYS,
  schoolBlock,
  SNAPSHOT_KEYS,
  SOURCE_KEYS,
  taiwanExport,
} from "./fixtures.js";

const data = taiwanExport();
const reference = new Reference(data);
const clock = movableClock(NOW);
let t: TestGateway;

beforeAll(async () => {
  t = await testGateway(data, { gateway: { now: clock.now } });
});
afterAll(async () => {
  await t?.close();
});

const JSON_TYPE = "application/json; charset=utf-8";
const ALL_IDS = [1, 2, 3, ...FILLER_IDS];

function expectSnapshotShape(s: Record<string, any>) {
  expect(Object.keys(s).sort()).toEqual([...SNAPSHOT_KEYS].sort());
  expect(Object.keys(s.school).sort()).toEqual([...SCHOOL_KEYS].sort());
  expect(Object.keys(s.realtime).sort()).toEqual([...REALTIME_KEYS].sort());
  expect(Object.keys(s.daily).sort()).toEqual([...DAILY_KEYS].sort());
  expect(s.day_boundary).toBe("school local timezone");
  expect(Array.isArray(s.data_sources)).toBe(true);
  for (const src of s.data_sources) {
    expect(Object.keys(src).sort()).toEqual([...SOURCE_KEYS].sort());
    expect(src.station_ids).toEqual([...src.station_ids].sort());
  }
  expect(s.data_sources.map((x: { id: string }) => x.id)).toEqual(s.data_sources.map((x: { id: string }) => x.id).sort());
}

describe("GET /api/v1/environment/schools/{school_ref}", () => {
  it("answers the same snapshot for the code in any case and for the numeric id", async () => {
    const bodies = await Promise.all(["NTU", "ntu", "nTu", "1"].map((ref) => rest(t, `/api/v1/environment/schools/${ref}`)));
    for (const r of bodies) {
      expect(r.status).toBe(200);
      expect(r.contentType).toBe(JSON_TYPE);
      expect(r.body).toEqual({ success: true, data: reference.snapshot("NTU", NOW) });
    }
    expect(Object.keys(bodies[0]!.body).sort()).toEqual(["data", "success"]);
    expectSnapshotShape(bodies[0]!.body.data);
  });

  it("answers 404 with the failure envelope for an unknown school", async () => {
    for (const ref of ["NOPE", "999", "0", "NTU2"]) {
      const r = await rest(t, `/api/v1/environment/schools/${ref}`);
      expect(r.status, ref).toBe(404);
      expect(r.contentType).toBe(JSON_TYPE);
      expect(r.body).toEqual({ success: false, error: expect.any(String) });
      expect(r.body.error.length).toBeGreaterThan(0);
    }
  });

  it("gives every school of the export a snapshot equal to the reference, all keys present", async () => {
    for (const id of ALL_IDS) {
      const r = await rest(t, `/api/v1/environment/schools/${id}`);
      expect(r.status).toBe(200);
      expectSnapshotShape(r.body.data);
      expect(r.body.data, `school ${id}`).toEqual(reference.snapshot(id, NOW));
    }
  });
});

describe("GET /api/v1/environment/schools/{school_ref}/history", () => {
  it.each(["0", "91", "abc", "1.5", "-1", "30x", "1e1"])("days=%s → 400 with the contract message", async (days) => {
    const r = await rest(t, `/api/v1/environment/schools/NTU/history?days=${days}`);
    expect(r.status).toBe(400);
    expect(r.contentType).toBe(JSON_TYPE);
    expect(r.body).toEqual({ success: false, error: "days must be an integer from 1 to 90" });
  });

  it("checks days (400) before looking the school up (404)", async () => {
    expect((await rest(t, "/api/v1/environment/schools/NOPE/history?days=0")).status).toBe(400);
    const missing = await rest(t, "/api/v1/environment/schools/NOPE/history?days=5");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: expect.any(String) });
  });

  it("defaults to 30 local dates ending today, ascending, dates without data left out", async () => {
    for (const query of ["", "?days=", "?other=1"]) {
      const r = await rest(t, `/api/v1/environment/schools/NTU/history${query}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: true, data: reference.history("NTU", 30, NOW) });
      const h = r.body.data;
      expect(h.days).toBe(30);
      expect(h.daily.map((d: { date_local: string }) => d.date_local)).toEqual([
        "2026-02-08", // the 30th date back, today (03-09) included
        "2026-03-06",
        "2026-03-07",
        "2026-03-08",
        "2026-03-09",
      ]);
    }
  });

  it("days=1 is today only, days=90 reaches 02-07 (the 31st date back)", async () => {
    const one = (await rest(t, "/api/v1/environment/schools/NTU/history?days=1")).body.data;
    expect(one.daily.map((d: { date_local: string }) => d.date_local)).toEqual(["2026-03-09"]);
    const ninety = (await rest(t, "/api/v1/environment/schools/NTU/history?days=90")).body.data;
    expect(ninety.days).toBe(90);
    expect(ninety.daily[0]).toEqual(
      // W1: 30 (04:00Z) and 40 (15:59:59Z) → 35, W2 30, W3 30 → (36·35 + 9·30 + 4·30)/49 = 1650/49 = 33.673; min 30; max (36·40+390)/49 = 37.347
      day("2026-02-07", { temp_c_avg: 33.7, temp_c_min: 30, temp_c_max: 37.3 }),
    );
    expect(ninety).toEqual(reference.history("NTU", 90, NOW));
  });

  it("has the history shape: every key present, nulls kept", async () => {
    const h = (await rest(t, "/api/v1/environment/schools/NTU/history?days=3")).body.data;
    expect(Object.keys(h).sort()).toEqual([...HISTORY_KEYS].sort());
    expect(h.school).toEqual(schoolBlock(NTU));
    expect(h.day_boundary).toBe("school local timezone");
    for (const d of h.daily) {
      expect(Object.keys(d).sort()).toEqual([...DAILY_KEYS].sort());
      expect(d.date_taipei).toBe(d.date_local);
    }
    expect(h.daily[0]).toHaveProperty("rh_avg", null);
  });
});

describe("GET /api/v1/environment/snapshot", () => {
  const list = async (query = "") => {
    const r = await rest(t, `/api/v1/environment/snapshot${query}`);
    expect(r.contentType).toBe(JSON_TYPE);
    return r;
  };

  it("defaults to 30 schools by id ascending, with the true total", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["items", "success", "total"]);
    expect(r.body.total).toBe(33);
    expect(r.body.items).toHaveLength(30);
    expect(r.body.items.map((i: { school: { id: number } }) => i.school.id)).toEqual(ALL_IDS.slice(0, 30));
    for (const item of r.body.items) expectSnapshotShape(item);
    expect(r.body.items).toEqual(ALL_IDS.slice(0, 30).map((id) => reference.snapshot(id, NOW)));
  });

  it("limit=1 gives one item and the true total; limit=100 all of them", async () => {
    const one = await list("?limit=1");
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ success: true, items: [reference.snapshot("NTU", NOW)], total: 33 });
    const all = await list("?limit=100");
    expect(all.body.items.map((i: { school: { id: number } }) => i.school.id)).toEqual(ALL_IDS);
    expect(all.body.total).toBe(33);
  });

  it("filters on the exact region", async () => {
    const taipei = await list("?region=Taipei");
    expect(taipei.body).toEqual({ success: true, items: [reference.snapshot("NTU", NOW)], total: 1 });
    const six = await list(`?region=${FILLER_REGIONS.six}&limit=4`);
    expect(six.body.total).toBe(6);
    expect(six.body.items.map((i: { school: { id: number } }) => i.school.id)).toEqual([13, 14, 15, 16]);
    const rest22 = await list(`?region=${FILLER_REGIONS.rest}`);
    expect(rest22.body.total).toBe(22);
    expect(rest22.body.items).toHaveLength(22);
  });

  it.each(["taipei", "Taipe", "Taipei ", "Nowhere"])("region=%s (not an exact match) → 200, items [], total 0", async (region) => {
    const r = await list(`?region=${encodeURIComponent(region)}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, items: [], total: 0 });
  });

  it("an empty region is no filter", async () => {
    const r = await list("?region=");
    expect(r.body.total).toBe(33);
    expect(r.body.items).toHaveLength(30);
  });

  it.each(["0", "101", "abc", "-5", "2.5"])("limit=%s → 400 with the contract message", async (limit) => {
    const r = await list(`?limit=${limit}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: "limit must be an integer from 1 to 100" });
  });

  it("before any observation today, every daily is today's local date with null values", async () => {
    const r = await clock.at(NEXT_DAY, () => list("?limit=100"));
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(33);
    for (const item of r.body.items) {
      expectSnapshotShape(item);
      expect(item.daily).toEqual(day("2026-03-11"));
      expect(item.realtime).toEqual({ aqi: null, aqi_status: null, pm25_ugm3: null, observed_at_utc: null });
      expect(item.data_sources).toEqual([]);
    }
  });
});
