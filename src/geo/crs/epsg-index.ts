import { readFileSync } from "node:fs";
import type { Ellipsoid, HelmertParameters } from "./geocentric.js";

/**
 * The EPSG CRSs and datum transformations georefresh knows, as PROJ's own database has them:
 * crs-index/epsg.json, written by scripts/build-crs-index.py from the PROJ that pyproj carries, and checked against
 * it by test/geo/crs-every-code.test.ts. One file, parsed when a CRS outside the few built in is first named.
 */

export type Step =
  | ["cart" | "icart", Ellipsoid]
  | [
      "helmert",
      HelmertParameters,
      "position_vector" | "coordinate_frame",
      boolean,
      { px: number; py: number; pz: number }?,
    ]
  | ["helmert-t", HelmertParameters, "position_vector" | "coordinate_frame", boolean, Record<string, number>]
  | ["geogoffset", number, number, boolean];

/** One transformation from a geographic CRS to WGS 84 that PROJ can run without grid files. */
export interface IndexedOperation {
  name: string;
  /** Metres; -1 unknown (PROJ's ballpark). */
  accuracy: number;
  /** [west, south, east, north] in degrees; west > east crosses the antimeridian. */
  area: [number, number, number, number];
  offshore?: boolean;
  unknownArea?: boolean;
  /** PROJ's last resort: lon/lat kept as they are, whatever the datums (errors of tens to hundreds of metres). */
  ballpark?: boolean;
  steps?: Step[];
  /** Found through an intermediate CRS (PROJ looks there when the direct transformation's grid is missing). */
  intermediate?: boolean;
  /** A PROJ pipeline with a step georefresh does not run. */
  unsupported?: string;
}

export interface IndexedDatum {
  ops: IndexedOperation[];
  /** Grids that PROJ's better transformations need, which no one here has. */
  grids?: string[];
}

export interface IndexedCrs {
  code: number;
  name: string;
  kind: "geographic" | "projected";
  /** The projection on the CRS's own ellipsoid, no datum shift; null where PROJ has no proj-string for it. */
  proj4: string | null;
  area: [number, number, number, number] | null;
  /** The EPSG code of its geographic CRS, whose transformations to WGS 84 apply. */
  base: number | null;
  esri?: string;
  /** A geographic CRS's datum, as EPSG and as ESRI name it. */
  datum?: string;
  esriDatum?: string;
  deprecated?: boolean;
  axes?: string[];
  /** The datum's candidates (indexes) in the order PROJ ranks them for this CRS, where it is not the datum's own. */
  ops?: number[];
  /** PROJ's inverse of the projection at a few points: x, y as files store them, Greenwich lon/lat on the datum. */
  check?: [number, number, number, number][];
}

interface IndexFile {
  proj: string;
  epsg: string;
  crs: Record<string, Omit<IndexedCrs, "code">>;
  datums: Record<string, IndexedDatum>;
  others?: Record<string, string>;
}

let loaded: IndexFile | undefined;
let byEsri: Map<string, number[]> | undefined;

function index(): IndexFile {
  // src/geo/crs and dist/geo/crs are both three folders below the package root, where crs-index/ is.
  loaded ??= JSON.parse(readFileSync(new URL("../../../crs-index/epsg.json", import.meta.url), "utf8")) as IndexFile;
  return loaded;
}

/** Where the index's answers come from, for messages and the docs: "PROJ 9.5.1, EPSG v11.022". */
export function indexSource(): string {
  const i = index();
  return `PROJ ${i.proj}, EPSG ${i.epsg}`;
}

export function epsgCrs(code: number): IndexedCrs | undefined {
  if (!Number.isInteger(code) || code <= 0) return undefined;
  const entry = Object.hasOwn(index().crs, String(code)) ? index().crs[String(code)] : undefined;
  return entry ? { code, ...entry } : undefined;
}

export function epsgDatum(base: number): IndexedDatum | undefined {
  const d = index().datums;
  return Object.hasOwn(d, String(base)) ? d[String(base)] : undefined;
}

/** The EPSG codes whose ESRI name (or EPSG name) is `name`, as a `.prj` spells it. */
export function epsgByName(name: string): number[] {
  if (!byEsri) {
    byEsri = new Map();
    for (const [code, c] of Object.entries(index().crs)) {
      for (const n of new Set([c.esri ?? c.name, c.name])) {
        const key = n.toLowerCase();
        byEsri.set(key, [...(byEsri.get(key) ?? []), Number(code)]);
      }
    }
  }
  return byEsri.get(name.toLowerCase()) ?? [];
}

/** Every code the index holds (the every-code test walks them). */
export function epsgCodes(): number[] {
  return Object.keys(index().crs).map(Number);
}

/** The geographic CRSs, by code. */
export function epsgGeographicCodes(): number[] {
  return Object.entries(index().crs)
    .filter(([, c]) => c.kind === "geographic")
    .map(([code]) => Number(code));
}

/** What a code that is no 2D CRS is (vertical, compound, …), for the refusal. */
export function epsgOtherKind(code: number): string | undefined {
  const o = index().others;
  return o && Object.hasOwn(o, String(code)) ? o[String(code)] : undefined;
}
