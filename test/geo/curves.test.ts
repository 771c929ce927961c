/**
 * Curves made straight as OGR makes them (geo/curves.ts), judged by GDAL's own GetLinearGeometry on 300 seeded
 * random curves of every kind: the same type, the same number of vertices, each coordinate within 1e-12 of OGR's
 * (relative), and nearly all of them bit for bit (the rest differ in the last bits of libm's cos and sin).
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { circularLine, holdsCurve, linearizeWkb } from "../../src/geo/curves.js";
import type { Geometry } from "../../src/geo/geometry.js";
import { decodeWkb, encodeWkb } from "../../src/geo/wkb.js";

const JUDGE = fileURLToPath(new URL("../helpers/curves_judge.py", import.meta.url));

interface Judged {
  wkt: string;
  wkb: string;
  type: string;
  positions: number[];
}

const numbers = (g: Geometry): number[] =>
  g.type === "GeometryCollection" ? g.geometries.flatMap(numbers) : (g.coordinates as unknown[]).flat(3).map(Number);

describe("curves read as OGR linearizes them", () => {
  it("300 random curves: OGR's vertices, nearly all bit for bit", () => {
    const judged = JSON.parse(
      execFileSync("/usr/bin/python3", [JUDGE, "7", "300"], { encoding: "utf8", maxBuffer: 256 * 2 ** 20 }),
    ) as Judged[];
    expect(judged).toHaveLength(300);
    let exact = 0;
    let total = 0;
    let worst = 0;
    for (const c of judged) {
      const wkb = Buffer.from(c.wkb, "hex");
      expect(holdsCurve(wkb), c.wkt).toBe(true);
      const g = decodeWkb(linearizeWkb(wkb));
      expect(g.type, c.wkt).toBe(c.type);
      const ours = numbers(g);
      expect(ours.length, c.wkt).toBe(c.positions.length);
      c.positions.forEach((theirs, i) => {
        const d = Math.abs((ours[i] as number) - theirs) / Math.max(1, Math.abs(theirs));
        worst = Math.max(worst, d);
        exact += d === 0 ? 1 : 0;
        total++;
      });
    }
    expect(worst).toBeLessThan(1e-12);
    expect(exact / total).toBeGreaterThan(0.95);
    expect(total).toBeGreaterThan(10_000);
  });

  it("a line is no curve, and a CircularString of 2 or 4 points is refused saying what it needs", () => {
    expect(
      holdsCurve(
        encodeWkb({
          type: "LineString",
          coordinates: [
            [0, 0],
            [1, 1],
          ],
        }),
      ),
    ).toBe(false);
    expect(
      holdsCurve(encodeWkb({ type: "GeometryCollection", geometries: [{ type: "Point", coordinates: [0, 0] }] })),
    ).toBe(false);
    expect(() =>
      circularLine(
        [
          [0, 0],
          [1, 1],
        ],
        false,
      ),
    ).toThrow(/has 2 points: it needs 3, 5, 7/);
    expect(() =>
      circularLine(
        [
          [0, 0],
          [1, 1],
          [2, 0],
          [3, 1],
        ],
        false,
      ),
    ).toThrow(/has 4 points/);
    // Three collinear points are kept as they are, as OGR keeps them.
    expect(
      circularLine(
        [
          [0, 0],
          [1, 1],
          [2, 2],
        ],
        false,
      ),
    ).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
  });

  it("truncated or lying curve WKB is a WkbError, never a crash or an endless loop", () => {
    const arc = Buffer.from(
      "0108000000030000000000000000000000000000000000000000000000000000f03f000000000000f03f",
      "hex",
    );
    expect(() => linearizeWkb(arc)).toThrow(/truncated/);
    const huge = Buffer.from(arc);
    huge.writeUInt32LE(0xffffffff, 5);
    expect(() => linearizeWkb(huge)).toThrow(/count of 4294967295/);
  });
});
