/**
 * The report's map fits the view to the data: far-flung regions get insets instead of shrinking the rest (or being
 * dropped), across the antimeridian too; a few close regions fill the map rather than a tall empty page.
 */
import { describe, expect, it } from "vitest";
import type { Geometry } from "../../src/geo/geometry.js";
import { mapSvg } from "../../src/report/map.js";
import type { Footprint } from "../../src/report/model.js";

const square = (x: number, y: number, s = 1): Geometry => ({
  type: "Polygon",
  coordinates: [
    [
      [x, y],
      [x + s, y],
      [x + s, y + s],
      [x, y + s],
      [x, y],
    ],
  ],
});
const fp = (region: string, geometries: Geometry[]): Footprint => ({
  region,
  date: "2026-01-01",
  geometries,
  bbox: [-180, -90, 180, 90],
});
const style = { fill: () => "#2e7d32", title: (f: Footprint) => f.region };
const size = (svg: string) => {
  const m = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg);
  return [Number(m?.[1]), Number(m?.[2])] as const;
};
const insets = (svg: string) => [...svg.matchAll(/<g class="inset" data-regions="([^"]+)"/g)].map((m) => m[1]);

describe("the report's map", () => {
  it("gives far-flung regions insets, one across the antimeridian included, and draws every region", () => {
    const mainland = Array.from({ length: 12 }, (_, i) => fp(`S${i}`, [square(-120 + i * 4, 32 + (i % 4) * 3, 3)]));
    // An Alaska with Aleutians on both sides of 180°, and a Hawaii.
    const ak = fp("AK", [square(-150, 60, 8), square(172, 52, 1), square(-178, 51.5, 1)]);
    const hi = fp("HI", [square(-158, 19, 2)]);
    // Florida hangs south of the rest but next to a neighbour: it stays; Guam and the Marianas go apart together.
    const fl = fp("FL", [square(-82, 26, 3)]);
    const pacific = [fp("GU", [square(144.6, 13.2, 0.4)]), fp("MP", [square(145.6, 15, 0.4)])];
    const svg = mapSvg([...mainland, fl, ak, hi, ...pacific], style);
    expect(insets(svg).sort()).toEqual(["AK", "GU,MP", "HI"]);
    expect(svg.match(/<g class="region"/g)).toHaveLength(17);
    // The Alaska inset is as wide as its own extent, not the globe: its paths stay inside its frame.
    const akInset = /<g class="inset" data-regions="AK"[^]*?<\/text><\/g>/.exec(svg)?.[0] ?? "";
    const width = Number(/<rect class="inset-frame" width="(\d+)"/.exec(akInset)?.[1]);
    const xs = [...akInset.matchAll(/[ML](-?\d+\.\d) /g)].map((m) => Number(m[1]));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThanOrEqual(width);
    // Taken across 180° as one piece (about 46° of longitude), not as a strip around the globe.
    const height = Number(/<rect class="inset-frame" width="\d+" height="(\d+)"/.exec(akInset)?.[1]);
    expect(height).toBeGreaterThan(80);
    // The mainland fills the main map's width.
    expect(size(svg)[0]).toBeGreaterThan(900);
  });

  it("fits a few close regions: a wide strip makes a short map, not a tall empty one", () => {
    const svg = mapSvg(
      [fp("a", [square(-105, 40, 0.5)]), fp("b", [square(-104, 40, 0.5)]), fp("c", [square(-103, 40, 0.5)])],
      style,
    );
    const [w, h] = size(svg);
    expect(insets(svg)).toEqual([]);
    expect(w).toBeGreaterThan(900);
    expect(h).toBeLessThan(w / 3);
    expect(svg).toMatch(/<g class="scale" data-metres="\d+"/);
  });
});
