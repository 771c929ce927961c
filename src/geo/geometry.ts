/** GeoJSON-shaped geometries: the in-memory form of one WKB value. An empty geometry has empty coordinates. */
export type Position = number[]; // [x, y] or [x, y, z]

export type Geometry =
  | { type: "Point"; coordinates: Position }
  | { type: "LineString"; coordinates: Position[] }
  | { type: "Polygon"; coordinates: Position[][] }
  | { type: "MultiPoint"; coordinates: Position[] }
  | { type: "MultiLineString"; coordinates: Position[][] }
  | { type: "MultiPolygon"; coordinates: Position[][][] }
  | { type: "GeometryCollection"; geometries: Geometry[] };

export type GeometryType = Geometry["type"];

/** WKB type codes (ISO). */
export const WKB_CODE: Record<GeometryType, number> = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
};

/** ISO WKB type code with its dimensions: +1000 Z, +2000 M, +3000 ZM (Parquet's geospatial_types use these). */
export function isoTypeCode(type: GeometryType, z: boolean, m = false): number {
  return WKB_CODE[type] + (z && m ? 3000 : m ? 2000 : z ? 1000 : 0);
}

export const TYPE_OF_CODE: GeometryType[] = [
  "Point",
  "Point",
  "LineString",
  "Polygon",
  "MultiPoint",
  "MultiLineString",
  "MultiPolygon",
  "GeometryCollection",
];

/** [xmin, ymin, xmax, ymax]; all ±Infinity for an empty geometry. */
export type BBox = [number, number, number, number];

export function emptyBBox(): BBox {
  return [Infinity, Infinity, -Infinity, -Infinity];
}

export function isEmptyBBox(b: BBox): boolean {
  return !(b[0] <= b[2]);
}
