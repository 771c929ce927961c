import proj4 from "proj4";
import type { Geometry, Position } from "../geometry.js";
import { epsgByName, epsgCrs, epsgDatum, epsgGeographicCodes, epsgOtherKind, indexSource } from "./epsg-index.js";
import type { IndexedCrs } from "./epsg-index.js";
import { datumShift, DatumShiftRefused, pickOperation, rankedFor, WGS84_SHIFT } from "./datum-shift.js";
import type { DatumShift, Operation } from "./datum-shift.js";
import { geographicProjjson, NAD83, P, projectedProjjson, WGS84 } from "./projjson.js";
import type { Datum } from "./projjson.js";
import { GeorefreshError } from "../../errors.js";
import type { ErrorCode } from "../../errors.js";

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
  /** The projection on the CRS's own ellipsoid (a proj4 definition or a name registered with proj4), no datum. */
  projection: string;
  /** Lon/lat in degrees from Greenwich on the same ellipsoid: what `projection` is inverted to. */
  lonlat: string;
  /** From lon/lat on the CRS's datum to WGS 84, as PROJ would pick it per point. */
  datum: DatumShift;
}

export class CrsError extends GeorefreshError {
  override readonly code: ErrorCode = "Crs";
}

const WORLD: Crs["areaOfUse"] = [-180, -90, 180, 90];

const WGS84_LONLAT = "+proj=longlat +a=6378137 +rf=298.257223563 +no_defs";

const CRS84: Crs = {
  id: "OGC:CRS84",
  name: "WGS 84 (CRS84)",
  geographic: true,
  proj4: "+proj=longlat +datum=WGS84 +no_defs",
  areaOfUse: WORLD,
  projjson: undefined,
  projection: WGS84_LONLAT,
  lonlat: WGS84_LONLAT,
  datum: WGS84_SHIFT,
};

type Storable = Omit<Crs, "projection" | "lonlat" | "datum">;

function geographic(d: Datum, proj: string): Storable {
  return {
    id: `EPSG:${d.code}`,
    name: d.crsName,
    geographic: true,
    proj4: proj,
    areaOfUse: WORLD,
    projjson: geographicProjjson(d),
  };
}

function utm(code: number, base: Datum, zone: number, south: boolean): Storable {
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

const FIXED: Record<string, Storable> = {
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
function storableCrs(code: number): Storable | undefined {
  if (code >= 32601 && code <= 32660) return utm(code, WGS84, code - 32600, false);
  if (code >= 32701 && code <= 32760) return utm(code, WGS84, code - 32700, true);
  if (code >= 26901 && code <= 26923) return utm(code, NAD83, code - 26900, false);
  return Object.hasOwn(FIXED, `EPSG:${code}`) ? FIXED[`EPSG:${code}`] : undefined;
}

const known = new Map<number, Crs | null>();
const shifts = new Map<number, DatumShift>();

/** The datum shift of an EPSG geographic CRS: PROJ's candidate transformations to WGS 84 without grids. */
function shiftOf(base: number | null, name: string): DatumShift {
  if (base === 4326) return WGS84_SHIFT;
  if (base === null) return datumShift(name, `unregistered:${name}`, { ops: [] });
  let shift = shifts.get(base);
  if (!shift) {
    const label = `${epsgCrs(base)?.name ?? name} (EPSG:${base})`;
    shifts.set(base, (shift = datumShift(label, String(base), epsgDatum(base) ?? { ops: [] })));
  }
  return shift;
}

/** Registers a proj4 definition once under a name; proj4 parses it on first use. */
function registered(name: string, definition: string): string {
  if (!proj4.defs(name)) proj4.defs(name, definition);
  return name;
}

function lonlatOf(proj: string): string {
  const a = /\+a=(\S+)/.exec(proj)?.[1];
  const rf = /\+rf=(\S+)/.exec(proj)?.[1];
  const b = /\+b=(\S+)/.exec(proj)?.[1];
  return `+proj=longlat +a=${a}${rf ? ` +rf=${rf}` : ` +b=${b ?? a}`} +no_defs`;
}

function fromIndex(entry: IndexedCrs, storable: Storable | undefined): Crs {
  const where = `EPSG:${entry.code} (${entry.name})`;
  if (!entry.proj4)
    throw new CrsError(
      `${where} has no definition georefresh can compute with (PROJ gives no proj-string for it); reproject the file first, e.g. ogr2ogr -t_srs EPSG:4326`,
    );
  const projection = registered(`georefresh:EPSG:${entry.code}`, entry.proj4);
  try {
    proj4(projection, lonlatOf(entry.proj4)).forward([0, 0]);
  } catch (error) {
    throw new CrsError(
      `${where}: its projection is not one georefresh computes (${(error as Error).message}); reproject the file first, e.g. ogr2ogr -t_srs EPSG:4326`,
    );
  }
  const def = proj4.defs(projection) as { axis?: string } | undefined;
  // Files store x = east, y = north whatever the EPSG axis order says (GDAL's traditional GIS order); only a CRS
  // whose axes point west or south keeps them.
  if (def && !entry.axes?.some((a) => a === "west" || a === "south")) def.axis = "enu";
  agreesWithProj(entry, projection, where);
  const base = storable ?? {
    id: `EPSG:${entry.code}`,
    name: entry.name,
    geographic: entry.kind === "geographic",
    proj4: projection,
    areaOfUse: WORLD,
    projjson: undefined,
  };
  return {
    ...base,
    areaOfUse: entry.kind === "geographic" || !entry.area ? base.areaOfUse : entry.area,
    projection,
    lonlat: lonlatOf(entry.proj4),
    datum: rankedShift(entry),
  };
}

function rankedShift(entry: IndexedCrs): DatumShift {
  const base = entry.kind === "geographic" ? entry.code : entry.base;
  const shift = shiftOf(base, entry.name);
  const ops = base === null || !entry.ops ? undefined : epsgDatum(base)?.ops;
  return ops
    ? rankedFor(
        shift,
        (entry.ops ?? []).map((i) => (ops[i] as { name: string }).name),
      )
    : shift;
}

/**
 * The projection as georefresh computes it must invert PROJ's own point (the index's check) to 1e-9°: a method,
 * parameter, unit or axis it does not compute as PROJ does is refused here, never read differently.
 */
function agreesWithProj(entry: IndexedCrs, projection: string, where: string): void {
  if (!entry.check || !entry.proj4) return;
  const inverse = proj4(projection, lonlatOf(entry.proj4));
  for (const [x, y, lon, lat] of entry.check) {
    let q: number[] = [Number.NaN, Number.NaN];
    try {
      q = inverse.forward([x, y], true);
    } catch {
      // Not computable: refused below.
    }
    const dl = Math.abs((((((q[0] as number) - lon + 540) % 360) + 360) % 360) - 180);
    if (dl < 1e-8 && Math.abs((q[1] as number) - lat) < 1e-8) continue;
    throw new CrsError(
      `${where}: georefresh does not compute this CRS as PROJ does (its ${entry.kind === "geographic" ? "angular unit or prime meridian" : "projection method or one of its parameters"}: PROJ reads (${x} ${y}) as lon/lat (${lon} ${lat})); reproject the file first, e.g. ogr2ogr -t_srs EPSG:4326`,
    );
  }
}

/**
 * Any EPSG geographic 2D or projected CRS in the index (crs-index/epsg.json, from PROJ's database): the ones
 * georefresh stores in keep the PROJJSON it writes. Coordinates are read in any of them and moved to WGS 84 by the
 * transformation PROJ would pick without grid files.
 */
export function knownCrs(code: number): Crs | undefined {
  if (known.has(code)) return known.get(code) ?? undefined;
  const entry = epsgCrs(code);
  const storable = storableCrs(code);
  let crs: Crs | undefined;
  if (entry) crs = fromIndex(entry, storable);
  known.set(code, crs ?? null);
  return crs;
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
    const other = m ? epsgOtherKind(Number(m[1])) : undefined;
    throw new CrsError(
      other
        ? `EPSG:${m?.[1]} is ${other}, not a 2D geographic or projected CRS a feature's x/y can be in`
        : m
          ? `unknown CRS ${JSON.stringify(text)}: no 2D geographic or projected CRS has that EPSG code in the index georefresh ships (${indexSource()}); check the code, or give the CRS as WKT`
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
    if (!("type" in d) || !("coordinate_system" in d || "base_crs" in d || "datum" in d || "datum_ensemble" in d))
      throw new CrsError(
        `${where}: CRS ${id.authority}:${id.code} is not one georefresh knows and the PROJJSON does not define it; reproject the input, or write the full PROJJSON`,
      );
  }
  const byName = [CRS84, ...Object.values(FIXED)].find((c) => c.name === d.name);
  if (byName) return byName.id === CRS84.id ? CRS84 : crsFromCode(byName.id);
  if (!("type" in d))
    throw new CrsError(
      `refusing to compute: ${where}: the CRS has no id, no definition and an unrecognised name ${JSON.stringify(d.name)}`,
    );
  // A custom PROJJSON: read as PROJ reads it (its projection, its datum's registered shift), named by its name.
  const custom = customCrs(doc, where, () => `georefresh:projjson:${hashText(JSON.stringify(doc))}`);
  return identifiedByName(custom, where) ?? unidentified(custom, where);
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

export interface TransformOptions {
  /**
   * Accept PROJ's ballpark shift (lon/lat kept across datums) where PROJ has no transformation that runs without a
   * grid file; refused otherwise, naming the grids.
   */
  ballpark?: boolean;
  /** Counts the positions that took the ballpark (with `ballpark`), so the artifact can say so. */
  ballparked?: BallparkTally;
}

/** Positions PROJ's ballpark moved (lon/lat kept across datums), and the datums it stood in for. */
export interface BallparkTally {
  positions: number;
  datums: Set<string>;
}

/** The box each candidate's area of use covers in a CRS's own coordinates, as PROJ's proj_trans tests a point. */
function boxesIn(crs: Crs, ops: Operation[]): [number, number, number, number][] {
  if (crs.projection === crs.lonlat) return ops.map((o) => o.area);
  const toCrs = proj4(crs.lonlat, crs.projection);
  return ops.map((o) => {
    const [w, s, e, n] = o.area;
    if (w === -180 && s === -90 && e === 180 && n === 90)
      return [-Number.MAX_VALUE, -Number.MAX_VALUE, Number.MAX_VALUE, Number.MAX_VALUE];
    const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let j = 0; j <= 20; j++) {
      const lon = w + ((e - w) * j) / 20;
      const lat = s + ((n - s) * j) / 20;
      for (const [x0, y0] of [
        [lon, s],
        [lon, n],
        [w, lat],
        [e, lat],
      ]) {
        let q: number[];
        try {
          q = toCrs.forward([x0 as number, y0 as number], true);
        } catch {
          continue;
        }
        const [x, y] = q as [number, number];
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
        box[0] = Math.min(box[0], x);
        box[1] = Math.min(box[1], y);
        box[2] = Math.max(box[2], x);
        box[3] = Math.max(box[3], y);
      }
    }
    return box;
  });
}

function refuseBallpark(crs: Crs, x: number, y: number): never {
  const grids = crs.datum.grids;
  throw new CrsError(
    `${crs.id} (${crs.name}): PROJ has no transformation from ${crs.datum.label} to WGS 84 for (${x} ${y}) that runs without a grid file${
      grids.length ? ` (it would use ${grids.slice(0, 3).join(", ")}${grids.length > 3 ? ", …" : ""})` : ""
    }, and its fallback, a ballpark shift, keeps lon/lat across datums (errors of tens to hundreds of metres); reproject the file with the grid first (e.g. ogr2ogr -t_srs EPSG:4326 with PROJ_NETWORK=ON), or set "datumShift": "ballpark" on the source to accept it`,
  );
}

/**
 * A coordinate transform between two CRSs (x/y order: lon/lat for geographic CRSs, as GeoParquet stores): the
 * source's projection inverted onto its own ellipsoid, its datum moved to WGS 84 by the transformation PROJ picks
 * for that point, then the same backwards into the target. Two CRSs on one datum are not shifted at all.
 */
export function transformer(from: Crs, to: Crs, options: TransformOptions = {}): (p: Position) => Position {
  if (from.proj4 === to.proj4) return (p) => p;
  const inverse = from.projection === from.lonlat ? undefined : proj4(from.projection, from.lonlat);
  const forward = to.projection === to.lonlat ? undefined : proj4(to.lonlat, to.projection);
  const shifted = from.datum.key !== to.datum.key && !(from.datum.identity && to.datum.identity);
  const fromOps = from.datum.identity ? [] : from.datum.operations;
  const toOps = to.datum.identity ? [] : to.datum.operations;
  let fromBoxes: [number, number, number, number][] | undefined;
  const fromLonLat = from.projection === from.lonlat;
  const v = new Float64Array(3);
  return (p) => {
    const x = p[0] as number;
    const y = p[1] as number;
    let lon = x;
    let lat = y;
    if (inverse) [lon, lat] = inverse.forward([x, y], true) as [number, number];
    if (shifted) {
      v[0] = lon;
      v[1] = lat;
      if (!from.datum.identity) {
        fromBoxes ??= boxesIn(from, fromOps);
        const op = pickOperation(fromOps, fromBoxes, x, y, fromLonLat);
        if (!op || op.ballpark) {
          if (!from.datum.nullRegistered) {
            if (!options.ballpark) refuseBallpark(from, x, y);
            tally(options.ballparked, from);
          }
        } else runShift(op, v, false, from);
      }
      if (!to.datum.identity) {
        const op = pickOperation(
          toOps,
          toOps.map((o) => o.area),
          v[0] as number,
          v[1] as number,
          true,
        );
        if (!op || op.ballpark) {
          if (!to.datum.nullRegistered) {
            if (!options.ballpark) refuseBallpark(to, v[0] as number, v[1] as number);
            tally(options.ballparked, to);
          }
        } else runShift(op, v, true, to);
      }
      lon = v[0] as number;
      lat = v[1] as number;
    }
    let out: [number, number] = [lon, lat];
    if (forward) out = forward.forward([lon, lat], true) as [number, number];
    return p.length > 2 ? [out[0], out[1], p[2] as number] : out;
  };
}

function tally(t: BallparkTally | undefined, crs: Crs): void {
  if (!t) return;
  t.positions++;
  t.datums.add(crs.datum.label);
}

function runShift(op: Operation, v: Float64Array, inverse: boolean, crs: Crs): void {
  try {
    if (inverse) op.inverse(v);
    else op.forward(v);
  } catch (error) {
    if (error instanceof DatumShiftRefused)
      throw new CrsError(
        `${crs.id} (${crs.name}): ${error.message}; reproject the file first, e.g. ogr2ogr -t_srs EPSG:4326`,
      );
    throw error;
  }
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

export function reproject(g: Geometry, from: Crs, to: Crs, options: TransformOptions = {}): Geometry {
  return from.proj4 === to.proj4 ? g : mapPositions(g, transformer(from, to, options));
}

export const CRS84_CRS = CRS84;

/**
 * A CRS from WKT (WKT1 as GDAL writes it, an ESRI `.prj`, or WKT2), identified as GDAL identifies it: an EPSG id
 * on the outermost object, else a name that is an EPSG CRS's (or its ESRI name) whose definition gives the same
 * coordinates; either is that EPSG CRS, datum shift and all. Any other WKT is a custom CRS: its projection as
 * written (parameters it leaves out take WKT's defaults), its datum shift from its TOWGS84, else from the EPSG
 * datum it names. The axes are read as x = east, y = north: every file format a source reads (Shapefile,
 * GeoPackage, FlatGeobuf, GeoJSON, CSV) stores x first whatever the WKT's AXIS says.
 */
export function crsFromWkt(wkt: string, where: string): Crs {
  const text = wkt.trim();
  const epsg = topLevelEpsg(text);
  if (epsg !== undefined) {
    let crs: Crs | undefined;
    try {
      crs = knownCrs(epsg);
    } catch (error) {
      throw error instanceof CrsError ? new CrsError(`${where}: its CRS is ${error.message}`) : error;
    }
    if (crs) return crs;
  }
  const custom = customCrs(text, where, (def) => `georefresh:wkt:${hashText(text)}`, epsg);
  return identifiedByName(custom, where) ?? unidentified(custom, where);
}

/**
 * A custom CRS no EPSG name identifies, as it is read, unless it counts longitudes from Paris, Ferro or Bern on a
 * datum found by name: EPSG's such datums shift with a longitude rotation of their own (MGI (Ferro) to MGI turns by
 * 17°39'46.02", not Ferro's 17°40'), which the name alone does not carry.
 */
function unidentified(custom: Crs, where: string): Crs {
  const pm = (proj4.defs(custom.projection) as { from_greenwich?: number } | undefined)?.from_greenwich ?? 0;
  if (custom.datum.fromName && Math.abs(pm) > 1e-12)
    throw new CrsError(
      `${where}: its CRS counts longitudes from a prime meridian other than Greenwich (${((pm * 180) / Math.PI).toFixed(6)}°) on a datum named ${JSON.stringify(custom.datum.label)}, whose shift georefresh cannot tell from the name alone; add "crs": "EPSG:<code>" (the CRS its coordinates are in) to the dataset's "source", or reproject the file, e.g. ogr2ogr -t_srs EPSG:4326`,
    );
  return custom;
}

interface Proj4Def {
  name?: string;
  projName?: string;
  axis?: string;
  datumCode?: string;
  datum_params?: number[];
  nadgrids?: string;
  datum?: unknown;
  a?: number;
  b?: number;
  rf?: number;
  lat0?: number;
  lat1?: number;
  k0?: number;
  latitude_of_origin?: number;
  GEOGCS?: { name?: string; DATUM?: { name?: string; TOWGS84?: number[] } };
  DATUM?: { name?: string; TOWGS84?: number[] };
  srsCode?: string;
  [key: string]: unknown;
}

/** A CRS from a WKT or PROJJSON definition proj4 parses, its datum found as PROJ finds a custom CRS's. */
function customCrs(definition: string | object, where: string, key: (def: Proj4Def) => string, epsg?: number): Crs {
  const name0 = `georefresh:parse:${hashText(typeof definition === "string" ? definition : JSON.stringify(definition))}`;
  let def: Proj4Def | undefined;
  try {
    proj4.defs(name0, definition as string);
    def = proj4.defs(name0) as Proj4Def | undefined;
  } catch (error) {
    throw new CrsError(
      `${where}: its CRS cannot be read (${(error as Error).message}): ${clip(describe(definition))}${FIX}`,
    );
  }
  if (!def?.projName)
    throw new CrsError(
      `${where}: its CRS is not one georefresh can compute with: ${clip(describe(definition))}; declare it as "crs": "EPSG:…"`,
    );
  const datumName = def.GEOGCS?.DATUM?.name ?? def.DATUM?.name ?? (def.datum as { name?: string } | undefined)?.name;
  const towgs84 = def.datum_params;
  const projection: Proj4Def = { ...def, axis: "enu" };
  delete projection.datumCode;
  delete projection.datum_params;
  delete projection.nadgrids;
  delete projection.datum;
  if (typeof definition === "string" && /^\s*PROJCS\s*\[/i.test(definition)) {
    // WKT1 leaves a parameter out when it is its default: 0 for the latitude of origin (proj4 would take the
    // first standard parallel), 1 for a scale factor.
    if (
      !/PARAMETER\s*\[\s*"latitude_of_origin"/i.test(definition) &&
      !/PARAMETER\s*\[\s*"latitude_of_center"/i.test(definition)
    )
      projection.lat0 = 0;
  }
  if (projection.projName === "Transverse_Mercator" || projection.projName === "tmerc") projection.projName = "etmerc";
  const id = key(def);
  proj4.defs(id, projection as never);
  const a = def.a;
  const rf = def.rf;
  if (typeof a !== "number")
    throw new CrsError(`${where}: its CRS names no ellipsoid georefresh can read: ${clip(describe(definition))}${FIX}`);
  const lonlat = `+proj=longlat +a=${a}${rf ? ` +rf=${rf}` : ` +b=${def.b ?? a}`} +no_defs`;
  try {
    proj4(id, lonlat).inverse([0, 0]);
    roundTrips(projection, id, lonlat);
  } catch (error) {
    throw new CrsError(
      `${where}: its projection is not one georefresh computes (${(error as Error).message}): ${clip(describe(definition))}${FIX}`,
    );
  }
  const imprecise = IMPRECISE[String(projection.projName).toLowerCase()];
  if (imprecise) throw new CrsError(`${where}: ${imprecise}: ${clip(describe(definition))}${FIX}`);
  const geographic = def.projName === "longlat";
  const name = def.name ?? def.srsCode ?? "unnamed";
  const datum = customDatum(datumName, towgs84, a, rf ?? 0);
  const indexed = epsg !== undefined ? epsgCrs(epsg) : undefined;
  return {
    id: name,
    name,
    geographic,
    proj4: id,
    areaOfUse: !geographic && indexed?.area ? indexed.area : WORLD,
    projjson: undefined,
    projection: id,
    lonlat,
    datum,
  };
}

/**
 * Methods proj4 computes otherwise than PROJ, found by test/geo/crs-custom.test.ts: refused rather than read a few
 * metres off.
 */
const IMPRECISE: Record<string, string> = {
  robinson: "its projection, Robinson, is inverted by georefresh up to 3e-6° (about 0.3 m) from where PROJ puts it",
};
IMPRECISE.robin = IMPRECISE.robinson as string;

/**
 * A custom projection must take a point near its origin and give it back (1e-8°): a parameter proj4 did not
 * understand leaves NaN or an offset behind, which would otherwise surface as a bare error per coordinate.
 */
function roundTrips(def: Proj4Def, id: string, lonlat: string): void {
  if (def.projName === "longlat") return;
  const deg = (r: unknown) => (typeof r === "number" && Number.isFinite(r) ? (r * 180) / Math.PI : 0);
  const lon = Math.max(-179, Math.min(179, deg(def.long0 ?? def.longc) + 0.5));
  const lat = Math.max(-89, Math.min(89, deg(def.lat0) + (deg(def.lat0) > 0 ? -0.5 : 0.5)));
  const xy = proj4(lonlat, id).forward([lon, lat], true);
  const back = proj4(id, lonlat).forward(xy, true);
  const ok =
    xy.every(Number.isFinite) &&
    Math.abs((back[0] as number) - lon) < 1e-8 &&
    Math.abs((back[1] as number) - lat) < 1e-8;
  if (!ok) throw new Error(`a point near its origin, (${lon} ${lat}), does not come back from it`);
}

/** What to do about a file's CRS georefresh cannot read: say which it is, or reproject. */
const FIX = `; add "crs": "EPSG:<code>" (the CRS its coordinates are in) to the dataset's "source", or reproject the file, e.g. ogr2ogr -t_srs EPSG:4326`;

function describe(definition: string | object): string {
  return typeof definition === "string" ? definition : JSON.stringify(definition);
}

const normalName = (n: string) =>
  n
    .toLowerCase()
    .replace(/^d_/, "")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

let datumsByName: Map<string, number[]> | undefined;

/** The datum shift of a custom CRS: its TOWGS84 (a position-vector Helmert, everywhere), else its named datum's. */
function customDatum(name: string | undefined, towgs84: number[] | undefined, a: number, rf: number): DatumShift {
  const label = name ?? "an unnamed datum";
  if (towgs84 && towgs84.length >= 3) {
    // As WKT1 writes it (and PROJ reads it): metres, arc-seconds, ppm, position-vector rotations.
    const [x = 0, y = 0, z = 0, rx = 0, ry = 0, rz = 0, s = 0] = towgs84.map(Number);
    const h = { x, y, z, rx, ry, rz, s };
    if ([x, y, z, h.rx, h.ry, h.rz, h.s].every((v) => Math.abs(v as number) < 1e-12) && Math.abs(a - 6378137) < 0.5)
      return WGS84_SHIFT;
    return datumShift(label, `towgs84:${a}:${rf}:${towgs84.join(",")}`, {
      ops: [
        {
          name: `${label} to WGS 84 (its TOWGS84)`,
          accuracy: -1,
          area: [-180, -90, 180, 90],
          steps: [
            ["cart", [a, rf]],
            ["helmert", h as never, "position_vector", false],
            ["icart", [6378137, 298.257223563]],
          ],
        },
      ],
    });
  }
  if (name === undefined) return datumShift(label, `unregistered:${a}:${rf}`, { ops: [] });
  const n = normalName(name);
  if (n === "wgs_1984" || n === "world_geodetic_system_1984" || n === "wgs84") return WGS84_SHIFT;
  if (!datumsByName) {
    datumsByName = new Map();
    for (const code of epsgGeographicCodes()) {
      const e = epsgCrs(code);
      if (!e?.datum) continue;
      for (const dn of new Set([normalName(e.datum), e.esriDatum ? normalName(e.esriDatum) : ""]))
        if (dn) datumsByName.set(dn, [...(datumsByName.get(dn) ?? []), code]);
    }
  }
  // The datum's own geographic CRS (the first, not deprecated, by code): its transformations are the datum's.
  const codes = datumsByName.get(n) ?? [];
  const code = codes.find((c) => !epsgCrs(c)?.deprecated) ?? codes[0];
  if (code !== undefined) return { ...shiftOf(code, label), label, fromName: true };
  return { ...datumShift(label, `unregistered:${n}`, { ops: [] }), fromName: true };
}

/**
 * The EPSG CRS a WKT names (its own name, or the ESRI name a `.prj` writes), when that CRS gives the same
 * coordinates on the same datum: GDAL's identification of a `.prj`.
 */
function identifiedByName(custom: Crs, where: string): Crs | undefined {
  let named: { code: number; name: string } | undefined;
  let projectionMatched = false;
  let refused: Error | undefined;
  for (const code of epsgByName(custom.name)) {
    let candidate: Crs | undefined;
    try {
      candidate = knownCrs(code);
    } catch (error) {
      refused ??= error as Error;
      continue;
    }
    if (!candidate || candidate.geographic !== custom.geographic) continue;
    named ??= { code, name: candidate.name };
    if (!sameProjection(custom, candidate)) continue;
    projectionMatched = true;
    if (sameDatum(custom, candidate, code)) return candidate;
  }
  // Named as an EPSG CRS is, and read as another projection: either the file means other parameters than its
  // name's, or georefresh reads them otherwise than PROJ (ESRI's polar stereographic and Krovak parameters). Which
  // one cannot be told here, so neither is guessed.
  // Named as an EPSG CRS that georefresh refuses (a method or unit it does not compute as PROJ does): a file that
  // spells the same CRS out is refused for the same reason.
  if (!named && refused instanceof CrsError)
    throw new CrsError(`${where}: its CRS is named ${JSON.stringify(custom.name)}, as ${refused.message}`);
  if (named && !projectionMatched)
    throw new CrsError(
      `${where}: its CRS is named ${JSON.stringify(custom.name)}, as EPSG:${named.code} (${named.name}) is, but georefresh reads its parameters as another projection; if the coordinates are in EPSG:${named.code}, add "crs": "EPSG:${named.code}" to the dataset's "source" (it is used where the file's own CRS cannot be read), else reproject the file, e.g. ogr2ogr -t_srs EPSG:4326`,
    );
  return undefined;
}

/**
 * Whether a custom CRS is on a named EPSG candidate's datum: the same shift, or its DATUM named as the candidate's
 * own datum is (by EPSG or ESRI: a `.prj`'s D_MGI beside PRIMEM Ferro is MGI (Ferro)'s datum, whose shift turns
 * longitudes by 17°39'46.02", not MGI's).
 */
function sameDatum(custom: Crs, candidate: Crs, code: number): boolean {
  if (candidate.datum.key === custom.datum.key || (candidate.datum.identity && custom.datum.identity)) return true;
  const entry = epsgCrs(code);
  const base = entry?.kind === "geographic" ? entry : entry?.base != null ? epsgCrs(entry.base) : undefined;
  const names = [base?.datum, base?.esriDatum].filter((n): n is string => !!n).map(normalName);
  return custom.datum.fromName === true && names.includes(normalName(custom.datum.label));
}

/** Whether two CRSs' projections invert to the same lon/lat (1e-9°) at points across the second's area of use. */
function sameProjection(a: Crs, b: Crs): boolean {
  const [w, s, e0, n] = b.areaOfUse;
  const e = e0 < w ? e0 + 360 : e0;
  const toB = proj4(b.lonlat, b.projection);
  const aBack = proj4(a.projection, a.lonlat);
  for (const fx of [0.2, 0.5, 0.8])
    for (const fy of [0.2, 0.5, 0.8]) {
      const lon = w + (e - w) * fx;
      const lat = s + (n - s) * fy;
      try {
        const q = aBack.forward(toB.forward([lon > 180 ? lon - 360 : lon, lat], true), true);
        const dl = Math.abs((((q[0] as number) - lon + 540) % 360) - 180);
        if (!(dl < 1e-9 && Math.abs((q[1] as number) - lat) < 1e-9)) return false;
      } catch {
        return false;
      }
    }
  return true;
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
