import { describe, expect, it } from "vitest";
import type { Geometry } from "../../src/geo/geometry.js";
import { ALL } from "./wkb-corpus.js";
import { decodeWkb, encodeWkb, encodeWkbColumn, WkbError, wkbSummary } from "../../src/geo/wkb.js";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));

describe("WKB codec", () => {
  it("round-trips every geometry type, XY and XYZ, with empties", () => {
    for (const g of ALL) expect(decodeWkb(encodeWkb(g))).toEqual(g);
  });

  it("writes one pre-sized column with per-row offsets, bboxes and the types present", () => {
    const col = encodeWkbColumn(ALL);
    expect(col.offsets).toHaveLength(ALL.length + 1);
    expect(col.offsets[ALL.length]).toBe(col.data.byteLength);
    for (const [i, g] of ALL.entries())
      expect(decodeWkb(col.data.subarray(col.offsets[i], col.offsets[i + 1]))).toEqual(g);
    expect([...col.bboxes.subarray(20, 24)]).toEqual([0, 0, 4, 4]); // the first polygon
    expect(Number.isNaN(col.bboxes[8])).toBe(true); // POINT EMPTY has no extent
    expect(col.types).toEqual(
      new Set([
        "Point",
        "Point Z",
        "LineString",
        "Polygon",
        "Polygon Z",
        "MultiPoint",
        "MultiLineString",
        "MultiPolygon",
        "GeometryCollection",
      ]),
    );
  });

  it("matches the ISO WKB bytes other tools write", () => {
    expect(Buffer.from(encodeWkb({ type: "Point", coordinates: [1, 2] })).toString("hex")).toBe(
      "0101000000000000000000f03f0000000000000040",
    );
    expect(Buffer.from(encodeWkb({ type: "Point", coordinates: [1, 2, 3] })).toString("hex")).toBe(
      "01e9030000000000000000f03f00000000000000400000000000000840",
    );
  });

  it("reads big-endian WKB and EWKB with Z flag and SRID", () => {
    expect(decodeWkb(hex("00 00000001 3ff0000000000000 4000000000000000"))).toEqual({
      type: "Point",
      coordinates: [1, 2],
    });
    const ewkb = hex("01 010000a0 e6100000 000000000000f03f 0000000000000040 0000000000000840");
    expect(decodeWkb(ewkb)).toEqual({ type: "Point", coordinates: [1, 2, 3] });
    expect(wkbSummary(ewkb).type).toBe("Point Z");
    expect(
      decodeWkb(hex("00 00000002 00000002 0000000000000000 0000000000000000 3ff0000000000000 3ff0000000000000")),
    ).toEqual({
      type: "LineString",
      coordinates: [
        [0, 0],
        [1, 1],
      ],
    });
  });

  it("reads XYM and XYZM (GeoParquet 2.0) by stepping over M: the types say M, positions stay XY or XYZ", () => {
    const xym = hex("01 d1070000 000000000000f03f 0000000000000040 0000000000000840");
    expect(decodeWkb(xym)).toEqual({ type: "Point", coordinates: [1, 2] });
    expect(wkbSummary(xym)).toMatchObject({ type: "Point M", bbox: [1, 2, 1, 2] });
    // LineString ZM, big-endian: 2 points of x y z m
    const zm = hex(
      "00 00000bba 00000002 3ff0000000000000 4000000000000000 4008000000000000 4010000000000000 4014000000000000 4018000000000000 401c000000000000 4020000000000000",
    );
    expect(decodeWkb(zm)).toEqual({
      type: "LineString",
      coordinates: [
        [1, 2, 3],
        [5, 6, 7],
      ],
    });
    expect(wkbSummary(zm)).toMatchObject({ type: "LineString ZM", bbox: [1, 2, 5, 6] });
  });

  it("names the row and byte offset of malformed WKB", () => {
    const poly = encodeWkb(ALL[5] as Geometry);
    const cases: [Uint8Array, RegExp][] = [
      [poly.subarray(0, poly.byteLength - 3), /row 7: invalid WKB at byte \d+: truncated/],
      [hex("02 01000000"), /row 7: invalid WKB at byte 0: byte order marker 2/],
      [hex("01 09000000"), /row 7: invalid WKB at byte 1: unknown geometry type code 9/],
      [new Uint8Array([...encodeWkb({ type: "Point", coordinates: [1, 2] }), 0]), /1 bytes left over/],
      [hex("01 03000000 ffffffff"), /truncated: 4294967295 × ring needs/],
      [hex("01 04000000 01000000 01 02000000 00000000"), /MultiPoint holds a LineString, expected Point/],
    ];
    for (const [bytes, message] of cases) {
      let error: unknown;
      try {
        decodeWkb(bytes, 7);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WkbError);
      expect((error as WkbError).row).toBe(7);
      expect((error as Error).message).toMatch(message);
    }
  });
});
