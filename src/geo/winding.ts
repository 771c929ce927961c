import type { Geometry, Position } from "./geometry.js";

/**
 * Rings wound as RFC 7946 §3.1.6 says a GeoJSON polygon's are: the exterior counterclockwise, holes clockwise (in
 * lon/lat, x east and y north). Stored artifacts keep the rings as their source wound them (GeoParquet asks no
 * order, and the bytes are the artifact); what georefresh hands out as GeoJSON (read, serve's items and tiles) is
 * rewound. A ring that is reversed keeps its first point, so it still closes on itself.
 */
export function rfc7946Winding(g: Geometry | null): Geometry | null {
  if (g === null) return g;
  switch (g.type) {
    case "Polygon":
      return { type: "Polygon", coordinates: polygon(g.coordinates) };
    case "MultiPolygon":
      return { type: "MultiPolygon", coordinates: g.coordinates.map(polygon) };
    case "GeometryCollection":
      return { type: "GeometryCollection", geometries: g.geometries.map((x) => rfc7946Winding(x) as Geometry) };
    default:
      return g;
  }
}

function polygon(rings: Position[][]): Position[][] {
  return rings.map((ring, i) => wound(ring, i === 0));
}

/** Twice the ring's signed area by the shoelace formula: positive when counterclockwise, negative clockwise. */
export function signedArea(ring: Position[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[j] as Position;
    const b = ring[i] as Position;
    sum += ((a[0] as number) - (b[0] as number)) * ((a[1] as number) + (b[1] as number));
  }
  return sum;
}

function wound(ring: Position[], exterior: boolean): Position[] {
  const area = signedArea(ring);
  if (area === 0 || area > 0 === exterior) return ring;
  // reversed, starting and ending on the same first point
  return [ring[0] as Position, ...ring.slice(1, -1).reverse(), ring[ring.length - 1] as Position];
}
