import { describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { validateWkb } from "../../src/geo/validity.js";
import { encodeWkbColumn } from "../../src/geo/wkb.js";
import { INVALID, VALID } from "./corpus.js";

const CRS84 = crsFromCode("OGC:CRS84");

describe("validateWkb: every geometry, GEOS semantics", () => {
  it("flags each invalid case with its reason and row, on the calling thread", async () => {
    const col = encodeWkbColumn(INVALID.map((c) => c.geometry));
    const issues = await validateWkb(col.data, col.offsets, CRS84, { threads: 0 });
    for (const [row, c] of INVALID.entries()) {
      const found = issues.filter((i) => i.row === row);
      expect(found, c.name).not.toHaveLength(0);
      expect(
        found.map((i) => i.kind),
        c.name,
      ).toContain(c.kind);
      expect(found.map((i) => i.reason).join(" | "), c.name).toMatch(c.reason);
      expect(found.map((i) => i.reason).join(" | "), c.name).not.toMatch(/Exception/);
    }
  });

  it("passes the valid edge cases", async () => {
    const col = encodeWkbColumn(VALID.map((c) => c.geometry));
    const issues = await validateWkb(col.data, col.offsets, CRS84, { threads: 0 });
    expect(issues.map((i) => `${VALID[i.row]?.name}: ${i.reason}`)).toEqual([]);
  });

  it("gives the same verdicts on worker threads, rows counted across chunks", async () => {
    const geoms = Array.from({ length: 3000 }, (_, i) => (i % 100 === 7 ? INVALID[0] : VALID[0])?.geometry);
    const col = encodeWkbColumn(geoms as never);
    const issues = await validateWkb(col.data, col.offsets, CRS84, { threads: 2, chunkRows: 256 });
    expect(issues.map((i) => i.row)).toEqual(Array.from({ length: 30 }, (_, k) => k * 100 + 7));
    expect(issues.every((i) => /Self-intersection/.test(i.reason))).toBe(true);
  });

  it("points alone are checked on the calling thread, with the same verdicts; a polygon among them still meets GEOS", async () => {
    const point = (x: number, y: number) => ({ type: "Point", coordinates: [x, y] });
    const points = Array.from({ length: 3000 }, (_, i) =>
      i === 1234 ? point(200, 10) : i === 2345 ? point(Number.NaN, 1) : point(-100 + i / 100, 40),
    );
    const col = encodeWkbColumn(points as never);
    const onThreads = await validateWkb(col.data, col.offsets, CRS84, { threads: 2, chunkRows: 256 });
    const here = await validateWkb(col.data, col.offsets, CRS84, { threads: 0 });
    expect(onThreads).toEqual(here);
    expect(onThreads.map((i) => [i.row, i.kind])).toEqual([
      [1234, "domain"],
      [2345, "non-finite"],
    ]);
    // A chunk that starts with points and then holds an invalid polygon loads GEOS when it gets there.
    const mixed = encodeWkbColumn([...points.slice(0, 600), INVALID[0]?.geometry] as never);
    const found = await validateWkb(mixed.data, mixed.offsets, CRS84, { threads: 0, chunkRows: 1024 });
    expect(found.map((i) => i.row)).toEqual([600]);
    expect(found[0]?.reason).toMatch(/Self-intersection/);
  });

  it("checks a projected CRS against its area of use", async () => {
    const utm10 = crsFromCode("EPSG:32610");
    const col = encodeWkbColumn([
      { type: "Point", coordinates: [500000, 4_000_000] }, // ~123°W 36°N: inside zone 10
      { type: "Point", coordinates: [500000, -4_000_000] }, // southern hemisphere: outside 32610
    ]);
    const issues = await validateWkb(col.data, col.offsets, utm10, { threads: 0 });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ row: 1, kind: "domain" });
    expect(issues[0]?.reason).toMatch(/outside the area of use of EPSG:32610/);
  });

  it("reports malformed WKB by row and byte offset instead of crashing", async () => {
    const col = encodeWkbColumn([
      { type: "Point", coordinates: [1, 2] },
      {
        type: "LineString",
        coordinates: [
          [0, 0],
          [1, 1],
        ],
      },
    ]);
    const truncated = col.data.slice(0, (col.offsets[2] as number) - 4);
    const offsets = Int32Array.from([0, col.offsets[1] as number, truncated.byteLength]);
    const issues = await validateWkb(truncated, offsets, CRS84, { threads: 0 });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ row: 1, kind: "wkb" });
    expect(issues[0]?.reason).toMatch(/row 1: invalid WKB at byte \d+: truncated/);
  });
});
