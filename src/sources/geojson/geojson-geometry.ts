import type { Geometry } from "../../geo/geometry.js";
import { SourceError } from "../errors.js";

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
    const collection: Geometry = {
      type: "GeometryCollection",
      geometries: o.geometries.map((c) => geojsonGeometry(c, where, depth + 1) ?? emptyCollection()),
    };
    return depth === 0 ? evenDimensions(collection) : collection;
  }
  const levels = typeof o.type === "string" ? DEPTH[o.type] : undefined;
  if (levels === undefined) throw bad(where, `geometry type ${JSON.stringify(o.type)}`);
  const shape = positions(o.coordinates, levels);
  if (shape === "not finite") throw bad(where, `${o.type} coordinates that are not finite numbers (NaN or infinite)`);
  if (!shape) throw bad(where, `${o.type} coordinates that are not ${levels + 1}-deep arrays of numbers`);
  return depth === 0 ? evenDimensions(g as Geometry) : (g as Geometry);
}

/**
 * Positions of one geometry made one dimension, as OGR reads them: when any has a z, those without get z = 0
 * (a LineString [[1, 2], [3, 4, 5]] is LINESTRING Z (1 2 0, 3 4 5)); a fourth number (a measure) is dropped.
 */
function evenDimensions(g: Geometry): Geometry {
  let min = Infinity;
  let max = 0;
  walk(g, (p) => {
    if (p.length === 0) return p;
    min = Math.min(min, p.length);
    max = Math.max(max, p.length);
    return p;
  });
  if (max < 3 || (min === 3 && max === 3)) return g;
  return walk(structuredClone(g), (p) => (p.length === 0 ? p : [p[0] as number, p[1] as number, p[2] ?? 0]));
}

function walk(g: Geometry, f: (p: number[]) => number[]): Geometry {
  const o = g as { type: string; coordinates?: unknown; geometries?: Geometry[] };
  if (o.type === "GeometryCollection") {
    for (const c of o.geometries ?? []) walk(c, f);
    return g;
  }
  const map = (c: unknown, d: number): unknown =>
    d === 0 ? f(c as number[]) : (c as unknown[]).map((x) => map(x, d - 1));
  o.coordinates = map(o.coordinates, DEPTH[o.type] as number);
  return g;
}

/**
 * A GeoJSON Feature → its geometry and properties, as OGR reads them: its "id" is a column "id" unless a property
 * of that name says otherwise (OGR keeps a string id as that field, an integer one as the feature's FID).
 */
export function featureRow(
  value: { geometry?: unknown; properties?: unknown; id?: unknown },
  where: () => string,
): { geometry: Geometry | null; properties: Record<string, unknown> | null; fid?: number } {
  const geometry = geojsonGeometry(value.geometry, where);
  let properties = value.properties as Record<string, unknown> | null;
  const id = value.id;
  if (
    (typeof id === "string" || typeof id === "number" || typeof id === "bigint") &&
    !(properties && Object.hasOwn(properties, "id"))
  ) {
    properties = { id, ...(properties ?? {}) };
  }
  // OGR takes an integer id as the feature's FID.
  return { geometry, properties, ...(typeof id === "number" && Number.isSafeInteger(id) ? { fid: id } : {}) };
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
