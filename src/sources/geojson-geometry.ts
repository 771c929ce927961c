import type { Geometry } from "../geo/geometry.js";
import { SourceError } from "./errors.js";

const DEPTH: Record<string, number> = {
  Point: 0,
  LineString: 1,
  MultiPoint: 1,
  Polygon: 2,
  MultiLineString: 2,
  MultiPolygon: 3,
};

/** GeometryCollections inside GeometryCollections deeper than this are hostile, not data (GEOS recurses too). */
const MAX_COLLECTION_DEPTH = 32;

/** A GeoJSON geometry checked for shape (type, nesting, numbers), so a bad one is named by its row. */
export function geojsonGeometry(g: unknown, where: () => string, depth = 0): Geometry | null {
  if (g === null || g === undefined) return null;
  const o = g as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (o.type === "GeometryCollection") {
    if (depth >= MAX_COLLECTION_DEPTH)
      throw bad(where, `GeometryCollections nested deeper than ${MAX_COLLECTION_DEPTH} levels`);
    if (!Array.isArray(o.geometries)) throw bad(where, 'a GeometryCollection without "geometries"');
    return {
      type: "GeometryCollection",
      geometries: o.geometries.map((c) => geojsonGeometry(c, where, depth + 1) ?? emptyCollection()),
    };
  }
  const levels = typeof o.type === "string" ? DEPTH[o.type] : undefined;
  if (levels === undefined) throw bad(where, `geometry type ${JSON.stringify(o.type)}`);
  const shape = positions(o.coordinates, levels);
  if (shape === "not finite") throw bad(where, `${o.type} coordinates that are not finite numbers (NaN or infinite)`);
  if (!shape) throw bad(where, `${o.type} coordinates that are not ${levels + 1}-deep arrays of numbers`);
  return g as Geometry;
}

function positions(c: unknown, depth: number): boolean | "not finite" {
  if (!Array.isArray(c)) return false;
  if (depth === 0) {
    if (c.length === 0) return true;
    if (c.length < 2 || c.length > 4 || !c.every((v) => typeof v === "number")) return false;
    return c.every(Number.isFinite) || "not finite";
  }
  for (const x of c) {
    const r = positions(x, depth - 1);
    if (r !== true) return r;
  }
  return true;
}

const emptyCollection = (): Geometry => ({ type: "GeometryCollection", geometries: [] });

function bad(where: () => string, what: string): SourceError {
  return new SourceError(`${where()}: ${what}; fix the feature or leave it out of the file`);
}

/** A GeoJSON `crs` member (GeoJSON 2008; RFC 7946 dropped it) → "AUTH:CODE" or a URN crsFromDefinition reads. */
export function crsMember(crs: unknown, where: string): string | undefined {
  if (crs === undefined || crs === null) return undefined;
  const c = crs as { type?: string; properties?: { name?: unknown; code?: unknown } };
  if (c.type === "name" && typeof c.properties?.name === "string") return c.properties.name;
  if (c.type === "EPSG" && c.properties?.code !== undefined) return `EPSG:${String(c.properties.code)}`;
  throw new SourceError(
    `${where}: its "crs" member ${JSON.stringify(crs).slice(0, 120)} is not a named CRS georefresh can read; remove it and declare "crs" in the source`,
  );
}
