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

/** A GeoJSON geometry checked for shape (type, nesting, numbers), so a bad one is named by its row. */
export function geojsonGeometry(g: unknown, where: () => string): Geometry | null {
  if (g === null || g === undefined) return null;
  const o = g as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  if (o.type === "GeometryCollection") {
    if (!Array.isArray(o.geometries)) throw bad(where, 'a GeometryCollection without "geometries"');
    return {
      type: "GeometryCollection",
      geometries: o.geometries.map((c) => geojsonGeometry(c, where) ?? emptyCollection()),
    };
  }
  const depth = typeof o.type === "string" ? DEPTH[o.type] : undefined;
  if (depth === undefined) throw bad(where, `geometry type ${JSON.stringify(o.type)}`);
  if (!positions(o.coordinates, depth))
    throw bad(where, `${o.type} coordinates that are not ${depth + 1}-deep arrays of numbers`);
  return g as Geometry;
}

function positions(c: unknown, depth: number): boolean {
  if (!Array.isArray(c)) return false;
  if (depth === 0)
    return (
      c.length === 0 || (c.length >= 2 && c.length <= 4 && c.every((v) => typeof v === "number" && Number.isFinite(v)))
    );
  return c.every((x) => positions(x, depth - 1));
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
