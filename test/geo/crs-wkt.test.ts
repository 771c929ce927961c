import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { crsFromCode, CrsError, crsFromWkt, transformer } from "../../src/geo/crs/crs.js";
import { gap, judgedCodes } from "../helpers/crs-judge.js";
import type { JudgedPoint as Point } from "../helpers/crs-judge.js";
import { geopandasPython } from "../helpers/geopandas.js";

/**
 * A CRS as files spell it: the WKT1 GDAL writes into a GeoPackage or FlatGeobuf, and the ESRI WKT of a `.prj`, for a
 * sample of EPSG codes, each read by georefresh and by PROJ from the same text. Every reading agrees to 1e-7°, or is
 * refused with what to do; never a different number.
 */

const HERE = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const judged = judgedCodes();

// Every 160th code, and the ones files from the wild are most often in (and the ones that were read wrongly).
const CODES = [
  ...Object.keys(judged.codes).filter((c, i) => i % 160 === 0 && !("error" in (judged.codes[c] ?? {}))),
  ...["27572", "21781", "2056", "3031", "3413", "28992", "2232", "4267", "26713", "3857", "5514", "2154", "31370"],
  ...["4326", "4269", "26913", "32633", "3035", "2193", "27700", "25832", "31467", "2180", "3006", "4805", "31255"],
];

describe("a CRS written as WKT reads as PROJ reads the same text", () => {
  it("GDAL's WKT1 and ESRI .prj of each sampled code: agree to 1e-7° or refused naming what to do", () => {
    const wkts = JSON.parse(
      execFileSync("/usr/bin/python3", [HERE("../helpers/gdal_wkt.py"), ...CODES], {
        encoding: "utf8",
        maxBuffer: 1 << 28,
      }),
    ) as Record<string, [string | null, string | null]>;
    const jobs: Record<string, [string, string]> = {};
    for (const [code, pair] of Object.entries(wkts))
      pair.forEach((wkt, k) => {
        if (wkt) jobs[`${code}:${k === 0 ? "wkt1" : "esri"}`] = [code, wkt];
      });
    const truth = JSON.parse(
      execFileSync(geopandasPython(), [HERE("../helpers/wkt_judge.py"), HERE("../../scripts/crs-judge.py")], {
        input: JSON.stringify(jobs),
        encoding: "utf8",
        maxBuffer: 1 << 28,
      }),
    ) as Record<string, { points: Point[] } | { error: string }>;
    const wgs84 = crsFromCode(4326);
    const tally = { agree: 0, refused: 0, ballparkRefused: 0, projCannot: 0, gdalCannot: 0 };
    const disagree: string[] = [];
    for (const pair of Object.values(wkts)) if (!pair[0] && !pair[1]) tally.gdalCannot++;
    for (const [key, [, wkt]] of Object.entries(jobs)) {
      const proj = truth[key];
      expect(proj, key).toBeDefined();
      if (!proj || "error" in proj) {
        tally.projCannot++;
        continue;
      }
      let t: ReturnType<typeof transformer>;
      try {
        t = transformer(crsFromWkt(wkt, `${key}.prj`), wgs84);
      } catch (error) {
        expect(error, key).toBeInstanceOf(CrsError);
        const message = (error as Error).message;
        expect(message, key).toContain(`${key}.prj`);
        expect(message, key).toMatch(/reproject the file|add "crs": "EPSG:|declare it as "crs"/);
        tally.refused++;
        continue;
      }
      let refusedHere = false;
      for (const [x, y, lon, lat, ballpark] of proj.points) {
        try {
          const d = gap(t([x, y]), lon, lat);
          if (d > 1e-7) disagree.push(`${key} (${x} ${y}): ${d}°`);
        } catch (error) {
          expect(error, key).toBeInstanceOf(CrsError);
          // Refused at a point only where PROJ itself has nothing better than its ballpark there.
          expect(ballpark, `${key} (${x} ${y}): ${(error as Error).message}`).toBe(1);
          refusedHere = true;
        }
      }
      if (refusedHere) tally.ballparkRefused++;
      else tally.agree++;
    }
    console.log(
      `${CODES.length} codes, ${Object.keys(jobs).length} WKT texts (GDAL ${"3.6"} WKT1 + ESRI): ${tally.agree} agree with PROJ, ` +
        `${tally.ballparkRefused} refused where PROJ uses its ballpark, ${tally.refused} refused whole, ` +
        `${tally.projCannot} PROJ cannot read either, ${tally.gdalCannot} codes not in GDAL 3.6's database`,
    );
    expect(disagree).toEqual([]);
    expect(tally.agree).toBeGreaterThan(0.75 * Object.keys(jobs).length);
  }, 120_000);
});
