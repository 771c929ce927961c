import proj4 from "proj4";
import type { Geometry, Position } from "./geometry.js";
import { areaOfUseOf, epsgEntry } from "./epsg-index.js";
import { geographicProjjson, NAD83, P, projectedProjjson, WGS84 } from "./projjson.js";
import type { Datum } from "./projjson.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/** A CRS georefresh can compute in. Unknown or missing CRSs are errors, never guesses. */
export interface Crs {
  /** "OGC:CRS84" or "EPSG:<code>". */
  id: string;
  name: string;
  geographic: boolean;
  proj4: string;
  /** Where coordinates may plausibly fall, as lon/lat [west, south, east, north]. */
  areaOfUse: [number, number, number, number];
  /** For the GeoParquet footer; undefined for OGC:CRS84, which the spec says to omit. */
  projjson: Record<string, unknown> | undefined;
}

export class CrsError extends GeorefreshError {
  override readonly code: ErrorCode = "Crs";
}

const WORLD: Crs["areaOfUse"] = [-180, -90, 180, 90];

const CRS84: Crs = {
  id: "OGC:CRS84",
  name: "WGS 84 (CRS84)",
  geographic: true,
  proj4: "+proj=longlat +datum=WGS84 +no_defs",
  areaOfUse: WORLD,
  projjson: undefined,
};

function geographic(d: Datum, proj: string): Crs {
  return {
    id: `EPSG:${d.code}`,
    name: d.crsName,
    geographic: true,
    proj4: proj,
    areaOfUse: WORLD,
    projjson: geographicProjjson(d),
  };
}

function utm(code: number, base: Datum, zone: number, south: boolean): Crs {
  const lon0 = -183 + 6 * zone;
  const name = `${base.crsName} / UTM zone ${zone}${south ? "S" : "N"}`;
  return {
    id: `EPSG:${code}`,
    name,
    geographic: false,
    proj4: `+proj=utm +zone=${zone}${south ? " +south" : ""} +${base === NAD83 ? "datum=NAD83" : "datum=WGS84"} +units=m +no_defs`,
    areaOfUse: [lon0 - 3, south ? -80 : 0, lon0 + 3, south ? 0 : 84],
    projjson: projectedProjjson(
      name,
      code,
      base,
      { name: "Transverse Mercator", code: 9807 },
      `UTM zone ${zone}${south ? "S" : "N"}`,
      [
        P.latOrigin(0),
        P.lonOrigin(lon0),
        P.scale(0.9996),
        P.falseEasting(500000),
        P.falseNorthing(south ? 10000000 : 0),
      ],
    ),
  };
}

const FIXED: Record<string, Crs> = {
  "OGC:CRS84": CRS84,
  "EPSG:4326": geographic(WGS84, "+proj=longlat +datum=WGS84 +no_defs"),
  "EPSG:4269": geographic(NAD83, "+proj=longlat +datum=NAD83 +no_defs"),
  "EPSG:3857": {
    id: "EPSG:3857",
    name: "WGS 84 / Pseudo-Mercator",
    geographic: false,
    proj4: "+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs",
    areaOfUse: [-180, -85.06, 180, 85.06],
    projjson: projectedProjjson(
      "WGS 84 / Pseudo-Mercator",
      3857,
      WGS84,
      { name: "Popular Visualisation Pseudo Mercator", code: 1024 },
      "Popular Visualisation Pseudo-Mercator",
      [P.latOrigin(0), P.lonOrigin(0), P.falseEasting(0), P.falseNorthing(0)],
    ),
  },
  "EPSG:5070": {
    id: "EPSG:5070",
    name: "NAD83 / Conus Albers",
    geographic: false,
    proj4: "+proj=aea +lat_0=23 +lon_0=-96 +lat_1=29.5 +lat_2=45.5 +x_0=0 +y_0=0 +datum=NAD83 +units=m +no_defs",
    areaOfUse: [-124.79, 24.41, -66.91, 49.38],
    projjson: projectedProjjson(
      "NAD83 / Conus Albers",
      5070,
      NAD83,
      { name: "Albers Equal Area", code: 9822 },
      "Conus Albers",
      [
        P.latFalseOrigin(23),
        P.lonFalseOrigin(-96),
        P.lat1(29.5),
        P.lat2(45.5),
        P.eastingFalseOrigin(0),
        P.northingFalseOrigin(0),
      ],
    ),
  },
  "EPSG:6933": {
    id: "EPSG:6933",
    name: "WGS 84 / NSIDC EASE-Grid 2.0 Global",
    geographic: false,
    proj4: "+proj=cea +lat_ts=30 +lon_0=0 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs",
    areaOfUse: [-180, -86, 180, 86],
    projjson: projectedProjjson(
      "WGS 84 / NSIDC EASE-Grid 2.0 Global",
      6933,
      WGS84,
      { name: "Lambert Cylindrical Equal Area", code: 9835 },
      "US NSIDC Equal Area global projection",
      [P.lat1(30), P.lonOrigin(0), P.falseEasting(0), P.falseNorthing(0)],
    ),
  },
};

/** How far outside a CRS's area of use (degrees) a coordinate may fall before it is judged misplaced. */
export const AREA_MARGIN_DEG = 3;

/**
 * Whether lon/lat lies within an area of use [west, south, east, north], widened by `margin` degrees; an area with
 * west > east crosses the antimeridian.
 */
export function inAreaOfUse(lon: number, lat: number, area: Crs["areaOfUse"], margin = AREA_MARGIN_DEG): boolean {
  const [w, s, e, n] = area;
  if (lat < s - margin || lat > n + margin) return false;
  if (w <= e) return lon >= w - margin && lon <= e + margin;
  return lon >= w - margin || lon <= e + margin;
}

/** The CRSs georefresh can store artifacts in: it writes their PROJJSON itself. */
function storableCrs(code: number): Crs | undefined {
  if (code >= 32601 && code <= 32660) return utm(code, WGS84, code - 32600, false);
  if (code >= 32701 && code <= 32760) return utm(code, WGS84, code - 32700, true);
  if (code >= 26901 && code <= 26923) return utm(code, NAD83, code - 26900, false);
  return FIXED[`EPSG:${code}`];
}

/**
 * Any EPSG code: the ones georefresh stores (above), with the EPSG dataset's area of use where the index has it;
 * any other 2D CRS from the epsg-index package's definitions, which coordinates can be read in and reprojected
 * from (not stored in: its PROJJSON is not written here). A CRS needing a datum grid file is refused, since
 * proj4 would silently skip the shift.
 */
export function knownCrs(code: number): Crs | undefined {
  const fixed = storableCrs(code);
  const entry = epsgEntry(code);
  const area = entry && areaOfUseOf(entry);
  if (fixed) return area && !fixed.geographic ? { ...fixed, areaOfUse: area } : fixed;
  if (!entry) return undefined;
  if (entry.kind !== "CRS-PROJCRS" && entry.kind !== "CRS-GEOGCRS")
    throw new CrsError(
      `EPSG:${code} (${entry.name}) is a ${entry.kind.replace(/^CRS-/, "").toLowerCase()}, not a 2D geographic or projected CRS a feature's x/y can be in`,
    );
  const grid = /\+nadgrids=(?!@null)(\S+)/.exec(entry.proj4);
  if (grid)
    throw new CrsError(
      `EPSG:${code} (${entry.name}) needs the datum grid ${grid[1]}, which georefresh does not ship (proj4 would skip the shift and misplace every coordinate); reproject the file first, e.g. ogr2ogr -t_srs EPSG:4326`,
    );
  const defName = `EPSG:${code}`;
  if (!proj4.defs(defName)) proj4.defs(defName, entry.proj4);
  const def = proj4.defs(defName) as { axis?: string } | undefined;
  // Files store x = east, y = north whatever the EPSG axis order says (as GDAL's traditional GIS order).
  if (def) def.axis = "enu";
  return {
    id: defName,
    name: entry.name,
    geographic: entry.kind === "CRS-GEOGCRS",
    proj4: defName,
    areaOfUse: entry.kind === "CRS-GEOGCRS" ? WORLD : (area ?? WORLD),
    projjson: undefined,
  };
}

/** The CRS artifacts are stored in: one georefresh writes PROJJSON for, since GeoParquet's footer needs it. */
export function storageCrsOf(input: string): Crs {
  const crs = crsFromCode(input);
  if (crs.id !== "OGC:CRS84" && crs.projjson === undefined)
    throw new CrsError(
      `${crs.id} (${crs.name}) can be read from, but georefresh cannot store artifacts in it: store in OGC:CRS84 (the default), EPSG:4326, 4269, 3857, 5070, 6933 or a UTM zone (32601–32660, 32701–32760, 26901–26923)`,
    );
  return crs;
}

/** "EPSG:5070", "epsg:5070", 5070, "OGC:CRS84", "CRS84", "urn:ogc:def:crs:EPSG::5070" → Crs. */
export function crsFromCode(input: string | number): Crs {
  const text = String(input).trim();
  if (/^(OGC:)?CRS84$/i.test(text) || /^urn:ogc:def:crs:OGC:(1\.3:)?CRS84$/i.test(text)) return CRS84;
  const m = /^(?:EPSG:+|urn:ogc:def:crs:EPSG:[\d.]*:)?(\d+)$/i.exec(text);
  const crs = m ? knownCrs(Number(m[1])) : undefined;
  if (!crs) {
    throw new CrsError(
      m
        ? `unknown CRS ${JSON.stringify(text)}: no such EPSG code in the definitions georefresh ships (the epsg-index package); check the code, or give the CRS as WKT`
        : `unknown CRS ${JSON.stringify(text)}: give it as "EPSG:<code>" (any EPSG code), "OGC:CRS84", WKT or PROJJSON`,
    );
  }
  return crs;
}

/** Identifies a CRS from PROJJSON (id.authority/code, else a known name). */
export function crsFromProjjson(doc: unknown, where: string): Crs {
  if (typeof doc !== "object" || doc === null) throw new CrsError(`${where}: crs is not a PROJJSON object`);
  const d = doc as {
    id?: { authority?: string; code?: string | number };
    name?: string;
    ids?: { authority?: string; code?: string | number }[];
  };
  const id = d.id ?? d.ids?.[0];
  if (id?.authority && id.code !== undefined) {
    if (id.authority.toUpperCase() === "OGC" && String(id.code).toUpperCase() === "CRS84") return CRS84;
    if (id.authority.toUpperCase() === "EPSG") return crsFromCode(`EPSG:${id.code}`);
    throw new CrsError(`${where}: CRS ${id.authority}:${id.code} is not one georefresh knows; reproject the input`);
  }
  const byName = [CRS84, ...Object.values(FIXED)].find((c) => c.name === d.name);
  if (byName) return byName;
  throw new CrsError(
    `${where}: refusing to compute: the CRS has no id and an unrecognised name ${JSON.stringify(d.name)}`,
  );
}

/**
 * The CRS of a GeoParquet geometry column: absent means OGC:CRS84 (the spec's default); null means "unknown",
 * which georefresh refuses rather than guessing.
 */
export function crsFromGeoParquet(column: { crs?: unknown }, where: string): Crs {
  if (!("crs" in column) || column.crs === undefined) return CRS84;
  if (column.crs === null)
    throw new CrsError(`refusing to compute: ${where} has no CRS (crs: null means unknown); declare the input's CRS`);
  return crsFromProjjson(column.crs, where);
}

/** A coordinate transform between two CRSs (x/y order: lon/lat for geographic CRSs, as GeoParquet stores). */
export function transformer(from: Crs, to: Crs): (p: Position) => Position {
  if (from.proj4 === to.proj4) return (p) => p;
  const t = proj4(from.proj4, to.proj4);
  return (p) => {
    const [x, y] = t.forward([p[0] as number, p[1] as number]);
    return p.length > 2 ? [x as number, y as number, p[2] as number] : [x as number, y as number];
  };
}

export function mapPositions(g: Geometry, f: (p: Position) => Position): Geometry {
  const ring = (r: Position[]) => r.map(f);
  switch (g.type) {
    case "Point":
      return { type: g.type, coordinates: g.coordinates.length === 0 ? [] : f(g.coordinates) };
    case "LineString":
    case "MultiPoint":
      return { type: g.type, coordinates: ring(g.coordinates) } as Geometry;
    case "Polygon":
    case "MultiLineString":
      return { type: g.type, coordinates: g.coordinates.map(ring) } as Geometry;
    case "MultiPolygon":
      return { type: g.type, coordinates: g.coordinates.map((p) => p.map(ring)) };
    case "GeometryCollection":
      return { type: g.type, geometries: g.geometries.map((c) => mapPositions(c, f)) };
  }
}

export function reproject(g: Geometry, from: Crs, to: Crs): Geometry {
  return from.proj4 === to.proj4 ? g : mapPositions(g, transformer(from, to));
}

export const CRS84_CRS = CRS84;

/**
 * A CRS from WKT (WKT1 as GDAL writes it, an ESRI `.prj`, or WKT2). One with an EPSG id this build knows is that
 * CRS; any other is handed to proj4 as written, with the axes read as x = east, y = north: every file format a
 * source reads (Shapefile, GeoPackage, FlatGeobuf, GeoJSON, CSV) stores x first whatever the WKT's AXIS says.
 */
export function crsFromWkt(wkt: string, where: string): Crs {
  const text = wkt.trim();
  const epsg = topLevelEpsg(text);
  let area: Crs["areaOfUse"] | undefined;
  if (epsg !== undefined) {
    const fixed = storableCrs(epsg);
    if (fixed) return knownCrs(epsg) ?? fixed;
    const entry = epsgEntry(epsg);
    area = entry && entry.kind === "CRS-PROJCRS" ? areaOfUseOf(entry) : undefined;
  }
  const name = /^\s*[A-Z_0-9]+\s*\[\s*"([^"]*)"/i.exec(text)?.[1] ?? "unnamed";
  const defName = `georefresh:wkt:${text.length}:${hashText(text)}`;
  if (!proj4.defs(defName)) {
    try {
      proj4.defs(defName, text);
    } catch (error) {
      throw new CrsError(`${where}: its CRS cannot be read (${(error as Error).message}): ${clip(text)}`);
    }
  }
  const def = proj4.defs(defName) as { projName?: string; axis?: string } | undefined;
  if (!def?.projName)
    throw new CrsError(`${where}: its CRS is not WKT proj4 can use: ${clip(text)}; declare it as "crs": "EPSG:…"`);
  def.axis = "enu";
  if (def.projName === "Transverse_Mercator" || def.projName === "tmerc") def.projName = "etmerc";
  return {
    id: epsg !== undefined ? `EPSG:${epsg}` : name,
    name,
    geographic: def.projName === "longlat",
    proj4: defName,
    areaOfUse: def.projName === "longlat" ? WORLD : (area ?? WORLD),
    projjson: undefined,
  };
}

/** A CRS as files and configs spell it: "EPSG:26913", "OGC:CRS84", WKT, or a PROJJSON object. */
export function crsFromDefinition(def: unknown, where: string): Crs {
  if (typeof def === "object" && def !== null) return crsFromProjjson(def, where);
  if (typeof def !== "string" || !def.trim()) throw new CrsError(`${where}: the CRS is empty`);
  if (/^\s*[A-Z_0-9]+\s*\[/i.test(def)) return crsFromWkt(def, where);
  if (/^\s*\{/.test(def)) {
    try {
      return crsFromProjjson(JSON.parse(def) as unknown, where);
    } catch (error) {
      if (error instanceof CrsError) throw error;
      throw new CrsError(`${where}: the CRS is neither a code, WKT nor PROJJSON: ${clip(def)}`);
    }
  }
  try {
    return crsFromCode(def);
  } catch (error) {
    throw new CrsError(`${where}: ${(error as Error).message}`);
  }
}

/** Two CRSs that transform coordinates alike (same definition, or the same EPSG id). */
export function sameCrs(a: Crs, b: Crs): boolean {
  return a.proj4 === b.proj4 || (a.id === b.id && /^(EPSG|OGC):/.test(a.id));
}

/** The EPSG code of a WKT's outermost object: the last AUTHORITY/ID at bracket depth 1. */
function topLevelEpsg(text: string): number | undefined {
  let depth = 0;
  let found: number | undefined;
  const re = /[[\]()]|(?:AUTHORITY|ID)\s*\[\s*"EPSG"\s*,\s*"?(\d+)"?/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const token = m[0];
    if (token === "[" || token === "(") depth++;
    else if (token === "]" || token === ")") depth--;
    else {
      if (depth === 1) found = Number(m[1]);
      depth++; // the match consumed the AUTHORITY's opening bracket
    }
  }
  return found;
}

function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16);
}

const clip = (s: string) => (s.length > 120 ? `${s.slice(0, 117)}…` : s);
