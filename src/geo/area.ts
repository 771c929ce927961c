import { crsFromCode, transformer } from "./crs.js";
import type { Crs } from "./crs.js";
import type { Geometry, Position } from "./geometry.js";

/**
 * Equal-area ground area in m², for plausibility checks (did the total area of a region jump?). Coordinates are
 * projected to an equal-area CRS — the input's own when it is one (EPSG:5070, 6933), else EPSG:6933, a global
 * cylindrical equal-area projection — and measured with the shoelace formula. Points and lines have no area.
 */
const EQUAL_AREA = new Set(["EPSG:5070", "EPSG:6933"]);

function ringArea(ring: Position[], f: (p: Position) => Position): number {
  let sum = 0;
  let prev = ring.length > 0 ? f(ring[ring.length - 1] as Position) : undefined;
  for (const raw of ring) {
    const p = f(raw);
    sum += (prev?.[0] as number) * (p[1] as number) - (p[0] as number) * (prev?.[1] as number);
    prev = p;
  }
  return Math.abs(sum) / 2;
}

function polygonArea(rings: Position[][], f: (p: Position) => Position): number {
  return rings.reduce((total, ring, i) => total + (i === 0 ? 1 : -1) * ringArea(ring, f), 0);
}

export function equalAreaArea(g: Geometry, crs: Crs): number {
  const f = EQUAL_AREA.has(crs.id) ? (p: Position) => p : transformer(crs, crsFromCode("EPSG:6933"));
  const area = (geom: Geometry): number => {
    switch (geom.type) {
      case "Polygon":
        return polygonArea(geom.coordinates, f);
      case "MultiPolygon":
        return geom.coordinates.reduce((s, p) => s + polygonArea(p, f), 0);
      case "GeometryCollection":
        return geom.geometries.reduce((s, c) => s + area(c), 0);
      default:
        return 0;
    }
  };
  return area(g);
}
