import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { crsFromCode, CrsError, transformer } from "../../src/geo/crs/crs.js";
import { gap, judgedCodes } from "../helpers/crs-judge.js";
import type { Judged, JudgedPoint as Point } from "../helpers/crs-judge.js";
import { geopandasPython } from "../helpers/geopandas.js";

/**
 * Every EPSG 2D geographic and projected CRS georefresh knows, read at nine points of its area as PROJ reads them
 * (test/fixtures/crs-judge.json.gz, written by `npm run build:crs-judge` from the PROJ in the GeoPandas venv, no grid
 * files): each reading agrees to 1e-7°, or is refused with a reason; never a different number.
 */

const SCRIPT = fileURLToPath(new URL("../../scripts/crs-judge.py", import.meta.url));
const judged = judgedCodes();
const TOLERANCE = 1e-7;

describe("every EPSG code reads as PROJ reads it", () => {
  it("agrees to 1e-7° at every point it accepts; refuses only what PROJ cannot do without a grid or georefresh cannot compute", () => {
    const wgs84 = crsFromCode(4326);
    const counts = { agree: 0, ballparkRefused: 0, ballparkNull: 0, codeRefused: 0, projCannot: 0, points: 0 };
    const disagree: string[] = [];
    const wrongRefusal: string[] = [];
    const reasons = new Map<string, number>();
    for (const [code, entry] of Object.entries(judged.codes)) {
      if ("error" in entry) {
        // PROJ itself has no transformation to WGS 84 for it: georefresh must not have one either.
        expect(() => crsFromCode(Number(code)), `EPSG:${code}: ${entry.error}`).toThrow(CrsError);
        counts.projCannot++;
        continue;
      }
      let t: ReturnType<typeof transformer>;
      let nullRegistered = false;
      try {
        const crs = crsFromCode(Number(code));
        nullRegistered = crs.datum.nullRegistered;
        t = transformer(crs, wgs84);
      } catch (error) {
        expect(error, `EPSG:${code}`).toBeInstanceOf(CrsError);
        const message = (error as Error).message;
        expect(message, `EPSG:${code}`).toContain(`EPSG:${code}`);
        expect(message, `EPSG:${code}`).toMatch(/reproject the file first/);
        const reason =
          /does not compute this CRS as PROJ does|its projection is not one georefresh computes|has no definition/.exec(
            message,
          )?.[0];
        reasons.set(reason ?? message, (reasons.get(reason ?? message) ?? 0) + 1);
        counts.codeRefused++;
        continue;
      }
      let refused = false;
      for (const [x, y, lon, lat, ballpark] of entry.points) {
        counts.points++;
        try {
          const d = gap(t([x, y]), lon, lat);
          if (d > TOLERANCE) disagree.push(`EPSG:${code} (${x} ${y}): ${d}°`);
          else if (ballpark) counts.ballparkNull++;
        } catch (error) {
          expect(error, `EPSG:${code}`).toBeInstanceOf(CrsError);
          // Refused only where PROJ falls back to its ballpark, and the datum registers no null transformation.
          if (!ballpark || nullRegistered) wrongRefusal.push(`EPSG:${code} (${x} ${y}): ${(error as Error).message}`);
          expect((error as Error).message).toMatch(/"datumShift": "ballpark"/);
          refused = true;
        }
      }
      if (refused) counts.ballparkRefused++;
      else counts.agree++;
    }
    console.log(
      `PROJ ${judged.proj}, EPSG ${judged.epsg}: ${Object.keys(judged.codes).length} codes, ${counts.points} points; ` +
        `${counts.agree} agree everywhere (${counts.ballparkNull} points on a null-registered datum's ballpark), ` +
        `${counts.ballparkRefused} refused where PROJ would use its ballpark, ${counts.codeRefused} refused whole ` +
        `(${[...reasons].map(([r, n]) => `${n}× ${r}`).join("; ")}), ${counts.projCannot} that PROJ cannot transform either`,
    );
    expect(disagree).toEqual([]);
    expect(wrongRefusal).toEqual([]);
    // Most of EPSG reads; a refusal is the exception, not the rule.
    expect(counts.agree).toBeGreaterThan(0.8 * Object.keys(judged.codes).length);
  });

  it("the fixture is PROJ's answer today: a sample of codes asked again agrees with it", () => {
    const codes = Object.keys(judged.codes).filter((_, i) => i % 150 === 0);
    codes.push("3857", "28992", "3021", "4267", "26713", "2056", "27572", "5169", "2046", "5514");
    const out = execFileSync(geopandasPython(), [SCRIPT, ...codes], { encoding: "utf8", maxBuffer: 1 << 26 });
    const fresh = JSON.parse(out) as Judged;
    expect(fresh.proj).toBe(judged.proj);
    expect(fresh.epsg).toBe(judged.epsg);
    for (const code of codes) {
      const a = judged.codes[code];
      const b = fresh.codes[code];
      expect(b, code).toBeDefined();
      if (!a || !b || "error" in a || "error" in b) {
        expect(b, code).toEqual(a);
        continue;
      }
      expect(b.points.length, code).toBe(a.points.length);
      b.points.forEach((p, i) => {
        const q = a.points[i] as Point;
        expect(p[4], code).toBe(q[4]);
        expect(gap(p.slice(2), q[2], q[3]), code).toBeLessThan(1e-12);
      });
    }
  });
});
