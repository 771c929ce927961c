/**
 * FlatGeobuf geometries written straight to WKB from the feature's bytes (fgb-wkb.ts over fgb-raw.ts) are the bytes the GeoJSON path gives
 * (encodeWkb(fromGeometry(…))), feature by feature, on files ogr2ogr wrote: polygons with holes and multipolygons,
 * 3D points, points/lines/polygons/multilines in one layer, ZM polygons, multipoints (GDAL leaves out the empties).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as flatbuffers from "flatbuffers";
import { Feature } from "flatgeobuf/lib/mjs/flat-geobuf/feature.js";
import { fromGeometry } from "flatgeobuf/lib/mjs/geojson/geometry.js";
import { fromByteBuffer } from "flatgeobuf/lib/mjs/header-meta.js";
import { calcTreeSize } from "flatgeobuf/lib/mjs/packedrtree.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Geometry } from "../../../src/geo/geometry.js";
import { encodeWkb } from "../../../src/geo/wkb.js";
import { FgbFeature } from "../../../src/sources/flatgeobuf/fgb-raw.js";
import { fgbWkb } from "../../../src/sources/flatgeobuf/fgb-wkb.js";
import { writeFixtures } from "../../helpers/source-corpus.js";

let dir: string;

/** Every feature's geometry of a FlatGeobuf file, with the header's geometry type. */
function geometries(path: string): { type: number; g: ReturnType<Feature["geometry"]>; body: Uint8Array }[] {
  const bytes = readFileSync(path);
  const size = bytes.readUInt32LE(8);
  const header = fromByteBuffer(new flatbuffers.ByteBuffer(new Uint8Array(bytes.subarray(8, 12 + size))));
  let at = 12 + size + (header.indexNodeSize > 0 ? calcTreeSize(header.featuresCount, header.indexNodeSize) : 0);
  const out = [];
  while (at < bytes.length) {
    const n = bytes.readUInt32LE(at);
    // A fresh copy, size prefix included, as the reader frames it (the coordinate arrays need its alignment).
    const feature = Feature.getSizePrefixedRootAsFeature(
      new flatbuffers.ByteBuffer(new Uint8Array(bytes.subarray(at, at + 4 + n))),
    );
    out.push({ type: header.geometryType, g: feature.geometry(), body: bytes.subarray(at + 4, at + 4 + n) });
    at += 4 + n;
  }
  return out;
}

describe("FlatGeobuf geometry straight to WKB", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-fgb-wkb-"));
    writeFixtures(dir);
    writeFileSync(
      join(dir, "extra.geojson"),
      JSON.stringify({
        type: "FeatureCollection",
        features: [
          {
            type: "MultiPoint",
            coordinates: [
              [1, 2],
              [3, 4],
            ],
          },
          {
            type: "Polygon",
            coordinates: [
              [
                [0, 0, 1, 9],
                [1, 0, 2, 9],
                [1, 1, 3, 9],
                [0, 0, 1, 9],
              ],
            ],
          },
          {
            type: "LineString",
            coordinates: [
              [0, 0],
              [1, 1],
              [2, 0],
            ],
          },
          { type: "Point", coordinates: [] },
          { type: "Polygon", coordinates: [] },
        ].map((geometry, i) => ({ type: "Feature", properties: { i }, geometry })),
      }),
    );
    for (const [name, extra] of [
      ["parcels", []],
      ["points3d", []],
      ["mixed", []],
      ["extra", []],
      ["parcels", ["-nlt", "MULTIPOLYGON", "-lco", "SPATIAL_INDEX=NO"]],
    ] as const)
      execFileSync(
        "ogr2ogr",
        [
          "-f",
          "FlatGeobuf",
          join(dir, `${name}${extra.length ? "-multi" : ""}.fgb`),
          join(dir, `${name}${name === "extra" ? "" : "-base"}.geojson`),
          ...extra,
        ],
        {
          stdio: ["ignore", "ignore", "ignore"],
        },
      );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gives the GeoJSON path's bytes for every feature", () => {
    let direct = 0;
    let kept = 0;
    for (const file of ["parcels", "points3d", "mixed", "extra", "parcels-multi"]) {
      for (const { type, g, body } of geometries(join(dir, `${file}.fgb`))) {
        if (!g) continue;
        let wkb: Uint8Array | undefined;
        try {
          // Read in place from the feature's bytes, as the reader does (fgb-raw.ts).
          const f = new FgbFeature().at(body);
          wkb = fgbWkb(f, f.geometry(), type);
        } catch (error) {
          throw new Error(`${file}: ${(error as Error).message}`);
        }
        const viaGeoJson = (() => {
          try {
            return encodeWkb(fromGeometry(g, type) as Geometry);
          } catch {
            return undefined;
          }
        })();
        if (wkb === undefined) {
          kept++;
          continue;
        }
        direct++;
        expect(Buffer.from(wkb).toString("hex"), file).toBe(Buffer.from(viaGeoJson as Uint8Array).toString("hex"));
      }
    }
    expect(direct).toBeGreaterThan(60);
    // GDAL's writer leaves out features with empty geometries, so these files give the GeoJSON path none.
    expect(kept).toBe(0);
  });
});
