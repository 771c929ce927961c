import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { crsFromCode, CrsError, crsFromProjjson, crsFromWkt, transformer } from "../../src/geo/crs/crs.js";
import { gap } from "../helpers/crs-judge.js";
import type { JudgedPoint } from "../helpers/crs-judge.js";
import { geopandasPython } from "../helpers/geopandas.js";

/**
 * Custom CRSs (no EPSG id, a name no EPSG CRS has) of the common projection methods, as WKT1, WKT2 and PROJJSON,
 * with parameters left to their defaults where the method allows (test/helpers/custom_crs_judge.py): each is read
 * as PROJ reads the same definition, to 1e-7°, or refused saying what to do.
 */

const HERE = (p: string) => fileURLToPath(new URL(p, import.meta.url));

interface Custom {
  wkt1: string | null;
  wkt2: string;
  projjson: object;
  points: JudgedPoint[];
}

describe("a custom CRS reads as PROJ reads the same definition", () => {
  it("LCC, TM, Albers, Mercator, stereographic, Krovak, Hotine, LAEA, … as WKT1, WKT2 and PROJJSON", () => {
    const judged = JSON.parse(
      execFileSync(geopandasPython(), [HERE("../helpers/custom_crs_judge.py"), HERE("../../scripts/crs-judge.py")], {
        encoding: "utf8",
      }),
    ) as Record<string, Custom | { error: string }>;
    const wgs84 = crsFromCode(4326);
    const verdicts: Record<string, string[]> = {};
    const disagree: string[] = [];
    for (const [name, c] of Object.entries(judged)) {
      expect("error" in c ? c.error : "", name).toBe("");
      const custom = c as Custom;
      expect(custom.points.length, name).toBe(9);
      for (const [kind, def] of [
        ["wkt1", custom.wkt1],
        ["wkt2", custom.wkt2],
        ["projjson", custom.projjson],
      ] as const) {
        if (def === null) continue;
        const where = `${name}.${kind}`;
        let t: ReturnType<typeof transformer>;
        try {
          t = transformer(typeof def === "string" ? crsFromWkt(def, where) : crsFromProjjson(def, where), wgs84);
        } catch (error) {
          expect(error, where).toBeInstanceOf(CrsError);
          expect((error as Error).message, where).toMatch(/reproject the file|add "crs": "EPSG:/);
          (verdicts.refused ??= []).push(where);
          continue;
        }
        for (const [x, y, lon, lat] of custom.points) {
          const d = gap(t([x, y]), lon, lat);
          if (d > 1e-7) disagree.push(`${where} (${x} ${y}): ${d}°`);
        }
        (verdicts.agree ??= []).push(where);
      }
    }
    console.log(
      `custom CRSs: ${verdicts.agree?.length ?? 0} definitions agree with PROJ; refused: ${(verdicts.refused ?? []).join(", ")}`,
    );
    expect(disagree).toEqual([]);
    // The ones files from the wild carry: a .prj's LCC without latitude_of_origin (WKT's default is 0), a custom
    // TM with its defaults, Krovak, a TOWGS84 of its own.
    for (const must of ["lcc-2sp-no-origin", "lcc-1sp", "tmerc-defaults", "aea", "krovak", "utm-towgs84", "laea"])
      for (const kind of ["wkt1", "wkt2", "projjson"]) expect(verdicts.agree, must).toContain(`${must}.${kind}`);
  }, 60_000);
});
