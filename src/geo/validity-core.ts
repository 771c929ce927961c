import initGeosJs from "geos-wasm";
import type { Crs } from "./crs.js";
import proj4 from "proj4";
import { decodeWkb, forEachPosition, WkbError } from "./wkb.js";
import type { Geometry } from "./geometry.js";

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
const AREA_MARGIN_DEG = 3;

function domainCheck(crs: ValidationChunk["crs"]): (g: Geometry) => string | undefined {
  const [w, s, e, n] = crs.areaOfUse;
  if (crs.geographic) {
    return (g) => {
      let bad: string | undefined;
      forEachPosition(g, (p) => {
        const [x, y] = p as [number, number];
        if (!bad && (x < -180 || x > 180 || y < -90 || y > 90)) bad = `coordinate (${x} ${y}) is outside lon/lat [-180,180]×[-90,90] of ${crs.id}`;
      });
      return bad;
    };
  }
  const toLonLat = proj4(crs.proj4, "WGS84");
  return (g) => {
    let bad: string | undefined;
    forEachPosition(g, (p) => {
      if (bad) return;
      const [lon, lat] = toLonLat.forward([p[0] as number, p[1] as number]) as [number, number];
      if (!(lon >= w - AREA_MARGIN_DEG && lon <= e + AREA_MARGIN_DEG && lat >= s - AREA_MARGIN_DEG && lat <= n + AREA_MARGIN_DEG)) {
        bad = `coordinate (${p[0]} ${p[1]}) lies at lon/lat (${lon.toFixed(3)} ${lat.toFixed(3)}), outside the area of use of ${crs.id} [${w}, ${s}, ${e}, ${n}]`;
      }
    });
    return bad;
  };
}

/** Checks every row of a chunk: WKB decodes, coordinates finite, inside the CRS domain, OGC-valid per GEOS. */
export async function validateChunk(chunk: ValidationChunk): Promise<GeometryIssue[]> {
  const { geos, lastError } = await loadGeos();
  const mod = geos.Module as unknown as { _malloc(n: number): number; _free(p: number): void; HEAPU8: Uint8Array; UTF8ToString(p: number): string };
  const issues: GeometryIssue[] = [];
  const inDomain = domainCheck(chunk.crs);
  const rows = chunk.offsets.length - 1;
  let cap = 1 << 16;
  let buf = mod._malloc(cap);
  try {
    for (let i = 0; i < rows; i++) {
      const row = chunk.firstRow + i;
      const bytes = chunk.data.subarray(chunk.offsets[i] as number, chunk.offsets[i + 1] as number);
      let g: Geometry;
      try {
        g = decodeWkb(bytes, row);
      } catch (error) {
        if (!(error instanceof WkbError)) throw error;
        issues.push({ row, kind: "wkb", reason: error.message });
        continue;
      }
      let nonFinite: string | undefined;
      forEachPosition(g, (p) => {
        if (!nonFinite && !p.every((v, k) => Number.isFinite(v) || (k === 2 && Number.isNaN(v)))) nonFinite = `non-finite coordinate (${p.join(" ")})`;
      });
      if (nonFinite) {
        issues.push({ row, kind: "non-finite", reason: nonFinite });
        continue;
      }
      const outside = inDomain(g);
      if (outside) issues.push({ row, kind: "domain", reason: outside });
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
        issues.push({ row, kind: "invalid", reason: lastError.message || "GEOS could not build the geometry" });
        continue;
      }
      const reasonPtr = geos.GEOSisValidReason(geom) as unknown as number;
      const reason = mod.UTF8ToString(reasonPtr);
      geos.GEOSFree(reasonPtr as never);
      geos.GEOSGeom_destroy(geom);
      if (reason !== "Valid Geometry") issues.push({ row, kind: "invalid", reason });
    }
  } finally {
    mod._free(buf);
  }
  return issues;
}
