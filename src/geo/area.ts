import { crsFromCode, transformer } from "./crs/crs.js";
import type { Crs } from "./crs/crs.js";
import type { Geometry } from "./geometry.js";
import { encodeWkb, wkbBaseCode } from "./wkb.js";
import { scanWkb } from "./wkb-scan.js";

/**
 * Equal-area ground area in m², for plausibility checks (did the total area of a region jump?). Lon/lat goes
 * through the ellipsoidal Lambert cylindrical equal-area mapping (x = λ, y = q(φ); area = shoelace · a²/2,
 * exact for the WGS 84 ellipsoid up to straight edges in that space); equal-area projected CRSs (EPSG:5070,
 * 6933) are measured as they are; other projected CRSs are taken to lon/lat first. Points and lines have no
 * area. Works on WKB without building objects.
 */
const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const E = Math.sqrt(E2);
const EQUAL_AREA = new Set(["EPSG:5070", "EPSG:6933"]);
const DEG = Math.PI / 180;

function authalicQ(latDeg: number): number {
  const s = Math.sin(latDeg * DEG);
  return (1 - E2) * (s / (1 - E2 * s * s) - (1 / (2 * E)) * Math.log((1 - E * s) / (1 + E * s)));
}

/** Maps (x, y) into an equal-area plane, writing into `out` (no allocation per coordinate on the fast paths). */
type Mapper = (x: number, y: number, out: Float64Array) => void;

const mappers = new Map<string, { map: Mapper; scale: number }>();

/** One mapper per CRS, made once: this runs for every row of every artifact. */
function mapper(crs: Crs): { map: Mapper; scale: number } {
  let m = mappers.get(crs.proj4);
  if (!m) mappers.set(crs.proj4, (m = makeMapper(crs)));
  return m;
}

function makeMapper(crs: Crs): { map: Mapper; scale: number } {
  if (EQUAL_AREA.has(crs.id)) {
    return { map: (x, y, out) => ((out[0] = x), (out[1] = y)), scale: 1 };
  }
  if (crs.geographic) return { map: (x, y, out) => ((out[0] = x * DEG), (out[1] = authalicQ(y))), scale: (A * A) / 2 };
  const toLonLat = transformer(crs, crsFromCode("OGC:CRS84"));
  return {
    map: (x, y, out) => {
      const p = toLonLat([x, y]);
      out[0] = (p[0] as number) * DEG;
      out[1] = authalicQ(p[1] as number);
    },
    scale: (A * A) / 2,
  };
}

/** Shoelace per ring (closed even if the data did not repeat its start), shells added and holes subtracted. */
export function wkbEqualAreaArea(wkb: Uint8Array, crs: Crs, row?: number): number {
  const code = wkbBaseCode(wkb);
  if (code === 1 || code === 2 || code === 4 || code === 5) return 0; // points and lines: no rings to scan
  const { map, scale } = mapper(crs);
  const p = new Float64Array(2);
  let total = 0;
  let sum = 0;
  let sign = 0; // 0 outside rings: points and lines have no area
  let first = true;
  let x0 = 0;
  let y0 = 0;
  let px = 0;
  let py = 0;
  scanWkb(
    wkb,
    {
      ringStart(hole) {
        sign = hole ? -1 : 1;
        sum = 0;
        first = true;
      },
      coord(x, y) {
        if (sign === 0) return;
        map(x, y, p);
        const u = p[0] as number;
        const v = p[1] as number;
        if (first) {
          first = false;
          x0 = u;
          y0 = v;
        } else sum += px * v - u * py;
        px = u;
        py = v;
      },
      ringEnd() {
        if (!first) total += (sign * Math.abs(sum + px * y0 - x0 * py)) / 2;
        sign = 0;
      },
    },
    row,
  );
  return total * scale;
}

export function equalAreaArea(g: Geometry, crs: Crs): number {
  return wkbEqualAreaArea(encodeWkb(g), crs);
}
