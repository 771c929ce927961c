import initGeosJs from "geos-wasm";
import { inAreaOfUse } from "./crs/crs.js";
import type { Crs } from "./crs/crs.js";
import proj4 from "proj4";
import { wkbBaseCode, WkbError } from "./wkb.js";
import { scanWkb } from "./wkb-scan.js";

/** One problem with one geometry. `row` is the row index in the column that was checked. */
export interface GeometryIssue {
  row: number;
  kind: "wkb" | "non-finite" | "domain" | "invalid";
  reason: string;
}

/** What crosses to a worker: a slice of a WKB column with offsets rebased to 0, and the CRS facts needed. */
export interface ValidationChunk {
  firstRow: number;
  data: Uint8Array;
  offsets: Int32Array;
  crs: Pick<Crs, "id" | "geographic" | "proj4" | "areaOfUse">;
}

type Geos = Awaited<ReturnType<typeof initGeosJs>>;

let geosReady: Promise<{ geos: Geos; lastError: { message: string } }> | undefined;

/** geos-wasm wants its own error/notice handlers; GEOS reports parse failures (unclosed rings…) through them. */
export function loadGeos() {
  geosReady ??= (async () => {
    const lastError = { message: "" };
    const geos = await initGeosJs({
      errorHandler: (m: string) => void (lastError.message = m),
      noticeHandler: (m: string) => void (lastError.message = m),
    });
    return { geos, lastError };
  })();
  return geosReady;
}

/** Margin around a projected CRS's area of use: data a little past a UTM zone edge is normal, far past is a bug. */

/** A per-coordinate domain check: the reason a coordinate lies outside the CRS's domain, or undefined. */
function domainCheck(crs: ValidationChunk["crs"]): (x: number, y: number) => string | undefined {
  const [w, s, e, n] = crs.areaOfUse;
  if (crs.geographic) {
    return (x, y) =>
      x < -180 || x > 180 || y < -90 || y > 90
        ? `coordinate (${x} ${y}) is outside lon/lat [-180,180]×[-90,90] of ${crs.id}`
        : undefined;
  }
  const toLonLat = proj4(crs.proj4, "WGS84");
  return (x, y) => {
    const [lon, lat] = toLonLat.forward([x, y], true) as [number, number];
    if (inAreaOfUse(lon, lat, crs.areaOfUse)) return undefined;
    return `coordinate (${x} ${y}) lies at lon/lat (${lon.toFixed(3)} ${lat.toFixed(3)}), outside the area of use of ${crs.id} [${w}, ${s}, ${e}, ${n}]`;
  };
}

/** The first non-finite coordinate and the first out-of-domain one of a WKB value, found without decoding it. */
function coordinateProblems(
  bytes: Uint8Array,
  row: number,
  outside: (x: number, y: number) => string | undefined,
): { nonFinite?: string; domain?: string } {
  const found: { nonFinite?: string; domain?: string } = {};
  scanWkb(
    bytes,
    {
      coord(x, y, z) {
        if (found.nonFinite) return;
        if (!Number.isFinite(x) || !Number.isFinite(y) || (!Number.isFinite(z) && !Number.isNaN(z))) {
          found.nonFinite = `non-finite coordinate (${Number.isNaN(z) ? `${x} ${y}` : `${x} ${y} ${z}`})`;
        } else if (!found.domain) found.domain = outside(x, y);
      },
    },
    row,
  );
  return found;
}

/** Checks every row of a chunk: WKB decodes, coordinates finite, inside the CRS domain, OGC-valid per GEOS. */
type GeosModule = {
  _malloc(n: number): number;
  _free(p: number): void;
  HEAPU8: Uint8Array;
  UTF8ToString(p: number): string;
};

export async function validateChunk(chunk: ValidationChunk): Promise<GeometryIssue[]> {
  const issues: GeometryIssue[] = [];
  const inDomain = domainCheck(chunk.crs);
  const rows = chunk.offsets.length - 1;
  // GEOS is loaded at the first geometry that needs it: a chunk of points never does.
  let geos: Geos | undefined;
  let lastError = { message: "" };
  let mod: GeosModule | undefined;
  let cap = 1 << 16;
  let buf = 0;
  try {
    for (let i = 0; i < rows; i++) {
      const row = chunk.firstRow + i;
      const bytes = chunk.data.subarray(chunk.offsets[i] as number, chunk.offsets[i + 1] as number);
      let problems: { nonFinite?: string; domain?: string };
      try {
        problems = coordinateProblems(bytes, row, inDomain);
      } catch (error) {
        if (!(error instanceof WkbError)) throw error;
        issues.push({ row, kind: "wkb", reason: error.message });
        continue;
      }
      if (problems.nonFinite) {
        issues.push({ row, kind: "non-finite", reason: problems.nonFinite });
        continue;
      }
      if (problems.domain) issues.push({ row, kind: "domain", reason: problems.domain });
      // A (multi)point that decodes with finite coordinates is OGC-valid: GEOS has nothing to say about it.
      const code = wkbBaseCode(bytes);
      if (code === 1 || code === 4) continue;
      if (!geos || !mod) {
        ({ geos, lastError } = await loadGeos());
        mod = geos.Module as unknown as GeosModule;
        buf = mod._malloc(cap);
      }
      if (bytes.byteLength > cap) {
        mod._free(buf);
        cap = bytes.byteLength * 2;
        buf = mod._malloc(cap);
      }
      // HEAPU8 is re-read each time: it is replaced when wasm memory grows.
      mod.HEAPU8.set(bytes, buf);
      lastError.message = "";
      const geom = geos.GEOSGeomFromWKB_buf(buf, bytes.byteLength);
      if (!geom) {
        issues.push({ row, kind: "invalid", reason: plainGeosError(lastError.message) });
        continue;
      }
      const reasonPtr = geos.GEOSisValidReason(geom) as unknown as number;
      const reason = mod.UTF8ToString(reasonPtr);
      geos.GEOSFree(reasonPtr as never);
      geos.GEOSGeom_destroy(geom);
      if (reason !== "Valid Geometry") issues.push({ row, kind: "invalid", reason });
    }
  } finally {
    if (mod) mod._free(buf);
  }
  return issues;
}

/**
 * GEOS's construction errors in a user's words: GEOS is a port of Java's JTS and says "IllegalArgumentException:
 * Points of LinearRing do not form a closed linestring"; a user needs what is wrong with the feature and what to do.
 */
export function plainGeosError(message: string): string {
  if (!message) return "GEOS could not build the geometry";
  if (/Points of LinearRing do not form a closed linestring/i.test(message))
    return "a ring is not closed (its last point is not its first): close each ring, as GeoJSON and WKB require";
  const ring = /Invalid number of points in LinearRing found (\d+)/i.exec(message);
  if (ring) return `a ring has ${ring[1]} points: a closed ring needs at least 4 (its first point repeated last)`;
  const line = /Invalid number of points in LineString found (\d+)/i.exec(message);
  if (line) return `a line has ${line[1]} point${line[1] === "1" ? "" : "s"}: a line needs at least 2`;
  if (/point array must contain 0 or >1 elements/i.test(message)) return "a line has 1 point: a line needs at least 2";
  return message.replace(/^\w*Exception:\s*/, "").trim();
}
