/**
 * A Shapefile without its .prj, declared in the right kind of CRS but the wrong zone (Colorado Central, EPSG:2232,
 * for data in Colorado North, EPSG:2231), reads as plausible coordinates 167 km south of where they are; no reading
 * of the file can tell. `plausibility.extent` pins where the region's data lies, and the first version is held to it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfillSource } from "../helpers/source-corpus.js";

let dir: string;
// Weld County, Colorado, as a lon/lat box; its towns below lie inside it.
const WELD: [number, number, number, number] = [-105.06, 39.91, -104.15, 41.0];
const TOWNS = [
  ["Greeley", -104.709, 40.423],
  ["Fort Lupton", -104.813, 40.085],
  ["Ault", -104.732, 40.582],
] as const;

const source = (crs: string) => ({ url: "./{region}/towns.shp", crs });
const pinned = { plausibility: { extent: { weld: WELD } } };

describe("plausibility.extent: where a region's data lies", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-extent-"));
    const weld = join(dir, "weld");
    mkdirSync(weld);
    const features = TOWNS.map(([name, lon, lat]) => ({
      type: "Feature",
      properties: { name },
      geometry: { type: "Point", coordinates: [lon, lat] },
    }));
    writeFileSync(join(dir, "towns.geojson"), JSON.stringify({ type: "FeatureCollection", features }));
    // GDAL's own writer puts the towns in Colorado North (US feet); then the .prj is lost, as it is in the wild.
    execFileSync("ogr2ogr", [
      "-f",
      "ESRI Shapefile",
      "-t_srs",
      "EPSG:2231",
      join(weld, "towns.shp"),
      join(dir, "towns.geojson"),
    ]);
    unlinkSync(join(weld, "towns.prj"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the wrong zone passes every other check, and the pinned extent refuses it naming where the data lies", async () => {
    const unpinned = await backfillSource(dir, "central", source("EPSG:2232"));
    // The silent case the pin exists for: without it, the wrong zone is published.
    expect(unpinned.code, unpinned.out).toBe(0);
    const refused = await backfillSource(dir, "central-pinned", source("EPSG:2232"), {}, pinned);
    expect(refused.code, refused.out).toBe(1);
    expect(refused.out).toMatch(
      /implausible result for central-pinned weld 2026-01-01: the data lies at lon -104\.8\d*…-104\.7\d*, lat 38\.\d+…39\.\d+, not inside the extent pinned for region weld \(lon -105\.06…-104\.15, lat 39\.91…41\): check that the source's CRS is the one its coordinates are in/,
    );
    expect(refused.published).toBe(false);
    const right = await backfillSource(dir, "north-pinned", source("EPSG:2231"), {}, pinned);
    expect(right.code, right.out).toBe(0);
    expect(right.out).toMatch(/1 promoted/);
  });

  it('"*" pins every region not named, and a region named wins over it', async () => {
    const star = await backfillSource(
      dir,
      "star",
      source("EPSG:2232"),
      {},
      {
        plausibility: { extent: { "*": WELD } },
      },
    );
    expect(star.code, star.out).toBe(1);
    const own = await backfillSource(
      dir,
      "own",
      source("EPSG:2232"),
      {},
      {
        plausibility: { extent: { "*": WELD, weld: [-106, 38, -104, 41.0] } },
      },
    );
    expect(own.code, own.out).toBe(0);
  });

  it("a misspelt rule, a box in metres or across the antimeridian is refused when the config loads (exit 2)", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { extnet: { weld: WELD } },
        /plausibility has no rule "extnet"; the rules are window, rowTolerance, areaTolerance, minRows, extent/,
      ],
      [
        { extent: { weld: [3.1e6, 1.2e6, 3.3e6, 1.5e6] } },
        /plausibility\.extent\["weld"\] \[3100000,1200000,3300000,1500000\] is not lon\/lat degrees/,
      ],
      [
        { extent: { weld: [170, -20, -170, -10] } },
        /has west > east \(across the antimeridian\), which is not supported/,
      ],
      [
        { extent: { weld: [-105, 39] } },
        /plausibility\.extent\["weld"\] must be \[west, south, east, north\] in degrees/,
      ],
      [{ rowTolerance: "half" }, /plausibility\.rowTolerance must be a number ≥ 0 \(got "half"\)/],
    ];
    for (const [plausibility, message] of cases) {
      const r = await backfillSource(dir, "typo", source("EPSG:2231"), {}, { plausibility });
      expect(r.code, r.out).toBe(2);
      expect(r.out).toMatch(message);
      expect(r.published).toBe(false);
    }
  });
});
