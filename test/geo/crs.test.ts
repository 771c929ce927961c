import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { equalAreaArea } from "../../src/geo/area.js";
import {
  crsFromCode,
  crsFromGeoParquet,
  crsFromProjjson,
  reproject,
  storageCrsOf,
  transformer,
} from "../../src/geo/crs/crs.js";

const CODES = [4326, 4269, 3857, 5070, 6933, 32601, 32610, 32660, 32701, 32733, 26901, 26915, 26923];

/** PROJ itself (pyproj, Debian's python3-pyproj) is the judge of our PROJJSON. */
function pyproj(script: string, input: unknown): unknown {
  const out = execFileSync("/usr/bin/python3", ["-c", script], { input: JSON.stringify(input), encoding: "utf8" });
  return JSON.parse(out);
}

describe("CRS", () => {
  it("parses the usual spellings of a code and refuses unknown ones", () => {
    for (const s of ["EPSG:5070", "epsg:5070", "5070", "urn:ogc:def:crs:EPSG::5070"])
      expect(crsFromCode(s).id).toBe("EPSG:5070");
    expect(crsFromCode(5070).id).toBe("EPSG:5070");
    expect(crsFromCode("CRS84").id).toBe("OGC:CRS84");
    expect(crsFromCode("OGC:CRS84").projjson).toBeUndefined();
    expect(() => crsFromCode("EPSG:999999")).toThrow(
      /unknown CRS "EPSG:999999": no 2D geographic or projected CRS has that EPSG code/,
    );
    expect(() => crsFromCode("EPSG:bogus")).toThrow(/unknown CRS "EPSG:bogus": give it as "EPSG:<code>"/);
    // Any EPSG code reads (UPS North, State Plane), with the EPSG area of use; storing needs PROJJSON we write.
    expect(crsFromCode("EPSG:32661").name).toBe("WGS 84 / UPS North (N,E)");
    expect(crsFromCode("EPSG:2232").areaOfUse).toEqual([-109.06, 38.14, -102.04, 40.09]);
    expect(crsFromCode("EPSG:26913").areaOfUse).toEqual([-108, 28.98, -102, 84]);
    expect(() => storageCrsOf("EPSG:32661")).toThrow(/cannot store artifacts in it/);
    expect(() => crsFromCode("EPSG:5703")).toThrow(/not a 2D geographic or projected CRS/);
  });

  it("writes PROJJSON that PROJ reads back as the same EPSG CRS", () => {
    const docs = Object.fromEntries(CODES.map((c) => [c, crsFromCode(c).projjson]));
    const verdict = pyproj(
      `import json, sys
from pyproj import CRS
out = {}
for code, doc in json.load(sys.stdin).items():
    ours = CRS.from_json_dict(doc)
    ref = CRS.from_epsg(int(code))
    out[code] = {"epsg": ours.to_epsg(), "equal": ours.equals(ref, ignore_axis_order=False), "proj": ours.to_proj4() == ref.to_proj4()}
print(json.dumps(out))`,
      docs,
    ) as Record<string, { epsg: number; equal: boolean; proj: boolean }>;
    for (const code of CODES) expect(verdict[code], `EPSG:${code}`).toEqual({ epsg: code, equal: true, proj: true });
  });

  it("identifies a CRS from PROJJSON by id or name, and from GeoParquet column metadata", () => {
    expect(crsFromProjjson(crsFromCode(32610).projjson, "in.parquet").id).toBe("EPSG:32610");
    expect(crsFromProjjson({ name: "NAD83 / Conus Albers" }, "in.parquet").id).toBe("EPSG:5070");
    expect(crsFromProjjson({ id: { authority: "OGC", code: "CRS84" } }, "x").id).toBe("OGC:CRS84");
    expect(crsFromGeoParquet({}, "x").id).toBe("OGC:CRS84");
    expect(() => crsFromGeoParquet({ crs: null }, "counties.parquet")).toThrow(
      /refusing to compute: counties.parquet has no CRS/,
    );
    expect(() => crsFromProjjson({ name: "Some Local Grid" }, "in.parquet")).toThrow(/refusing to compute/);
    expect(() => crsFromProjjson({ id: { authority: "ESRI", code: 102003 } }, "in.parquet")).toThrow(
      /ESRI:102003 is not one georefresh knows/,
    );
  });

  it("reprojects to known coordinates", () => {
    const toAlbers = transformer(crsFromCode("OGC:CRS84"), crsFromCode(5070));
    const [x, y] = toAlbers([-96, 23]) as [number, number];
    expect(Math.abs(x) + Math.abs(y)).toBeLessThan(1e-6);
    const [e, n] = transformer(crsFromCode(4326), crsFromCode(32610))([-123, 0]) as [number, number];
    expect(e).toBeCloseTo(500000, 3);
    expect(n).toBeCloseTo(0, 3);
    const back = reproject(
      reproject({ type: "Point", coordinates: [-122.4, 37.8, 12] }, crsFromCode(4326), crsFromCode(3857)),
      crsFromCode(3857),
      crsFromCode(4326),
    );
    expect(back.type === "Point" && back.coordinates[0]).toBeCloseTo(-122.4, 9);
    expect(back.type === "Point" && back.coordinates[2]).toBe(12);
  });

  it("measures equal-area area within 0.01% of PROJ's geodesic area", () => {
    const cell = {
      type: "Polygon" as const,
      coordinates: [
        densify([
          [-100, 40],
          [-99, 40],
          [-99, 41],
          [-100, 41],
          [-100, 40],
        ]),
      ],
    };
    const truth = pyproj(
      `import json, sys
from pyproj import Geod
ring = json.load(sys.stdin)
area, _ = Geod(ellps="WGS84").polygon_area_perimeter([p[0] for p in ring], [p[1] for p in ring])
print(json.dumps(abs(area)))`,
      cell.coordinates[0],
    ) as number;
    const ours = equalAreaArea(cell, crsFromCode("OGC:CRS84"));
    expect(Math.abs(ours - truth) / truth).toBeLessThan(1e-4);
    const inAlbers = reproject(cell, crsFromCode("OGC:CRS84"), crsFromCode(5070));
    expect(Math.abs(equalAreaArea(inAlbers, crsFromCode(5070)) - truth) / truth).toBeLessThan(1e-4);
  });
});

/** Adds points along each edge, as real boundaries have, so straight projected edges follow the geodesic. */
function densify(ring: number[][]): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < ring.length - 1; i++) {
    const [a, b] = [ring[i] as number[], ring[i + 1] as number[]];
    for (let k = 0; k < 50; k++)
      out.push([
        (a[0] as number) + ((b[0] as number) - (a[0] as number)) * (k / 50),
        (a[1] as number) + ((b[1] as number) - (a[1] as number)) * (k / 50),
      ]);
  }
  out.push(ring[ring.length - 1] as number[]);
  return out;
}
