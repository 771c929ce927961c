import { describe, expect, it } from "vitest";
import { crsFromCode, reproject, transformer } from "../../src/geo/crs/crs.js";
import type { Geometry } from "../../src/geo/geometry.js";
import { encodeWkbColumn, WkbError } from "../../src/geo/wkb.js";
import { rewriteWkbColumn } from "../../src/geo/wkb-rewrite.js";
import { ALL } from "./wkb-corpus.js";
import { ewkbBigEndian } from "../helpers/foreign-wkb.js";

function column(values: Uint8Array[]): { data: Uint8Array; offsets: Int32Array } {
  const offsets = new Int32Array(values.length + 1);
  values.forEach((v, i) => (offsets[i + 1] = (offsets[i] as number) + v.byteLength));
  const data = new Uint8Array(offsets[values.length] as number);
  values.forEach((v, i) => data.set(v, offsets[i] as number));
  return { data, offsets };
}

describe("rewriting a WKB column", () => {
  it("leaves canonical WKB byte-identical, with the same bboxes and types as the encoder", () => {
    const encoded = encodeWkbColumn(ALL);
    const out = rewriteWkbColumn(encoded.data, encoded.offsets);
    expect(Buffer.from(out.data).equals(Buffer.from(encoded.data))).toBe(true);
    expect([...out.offsets]).toEqual([...encoded.offsets]);
    expect([...out.bboxes]).toEqual([...encoded.bboxes]);
    expect(out.types).toEqual(encoded.types);
  });

  it("turns big-endian EWKB with SRIDs into the canonical little-endian ISO bytes", () => {
    const foreign = column(ALL.map((g, i) => ewkbBigEndian(g, i % 2 ? 4326 : undefined)));
    expect(foreign.data.byteLength).toBeGreaterThan(encodeWkbColumn(ALL).data.byteLength); // the SRIDs are really there
    const out = rewriteWkbColumn(foreign.data, foreign.offsets);
    expect(Buffer.from(out.data).toString("hex")).toBe(Buffer.from(encodeWkbColumn(ALL).data).toString("hex"));
  });

  it("reprojects without building geometries, to the bytes the feature path writes", () => {
    const from = crsFromCode("OGC:CRS84");
    const to = crsFromCode("EPSG:5070");
    const geoms = ALL.map(
      (g) =>
        JSON.parse(
          JSON.stringify(g).replace(/(-?\d+(\.\d+)?)(?=[,\]])/g, (m) => String(-100 + Number(m) / 10)),
        ) as Geometry,
    );
    const encoded = encodeWkbColumn(geoms);
    const out = rewriteWkbColumn(encoded.data, encoded.offsets, transformer(from, to));
    const expected = encodeWkbColumn(geoms.map((g) => reproject(g, from, to)));
    expect(Buffer.from(out.data).equals(Buffer.from(expected.data))).toBe(true);
    expect([...out.bboxes]).toEqual([...expected.bboxes]);
    expect(Math.abs(out.bboxes[0] as number)).toBeGreaterThan(1e5); // metres, not degrees
  });

  it("names the row and the byte offset within the row of malformed values", () => {
    const good = encodeWkbColumn(ALL.slice(0, 3));
    const poly = encodeWkbColumn([ALL[5] as Geometry]).data;
    const truncated = column([
      good.data.subarray(good.offsets[0], good.offsets[1]),
      poly.subarray(0, poly.byteLength - 3),
    ]);
    expect(() => rewriteWkbColumn(truncated.data, truncated.offsets)).toThrow(
      /^row 1: invalid WKB at byte \d+: truncated/,
    );
    const error = (() => {
      try {
        rewriteWkbColumn(truncated.data, truncated.offsets);
      } catch (e) {
        return e as WkbError;
      }
    })();
    expect(error?.byteOffset).toBeLessThan(poly.byteLength);
    const mixed = column([
      Uint8Array.from(Buffer.from("0104000000" + "01000000" + "01e9030000" + "0".repeat(48), "hex")),
    ]);
    expect(() => rewriteWkbColumn(mixed.data, mixed.offsets)).toThrow(
      /row 0: invalid WKB at byte 9: a part is XYZ inside an XY geometry/,
    );
    const trailing = column([Uint8Array.from([...poly, 0])]);
    expect(() => rewriteWkbColumn(trailing.data, trailing.offsets)).toThrow(/1 bytes left over/);
    const xym = column([Uint8Array.from(Buffer.from("01d1070000" + "0".repeat(48), "hex"))]);
    expect(() => rewriteWkbColumn(xym.data, xym.offsets)).toThrow(
      /row 0: invalid WKB at byte 0: M coordinates are not supported \(georefresh stores XY or XYZ\)/,
    );
  });
});
