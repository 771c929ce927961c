import { copyFile, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { knownCrs } from "../../geo/crs/crs.js";
import { holdsCurve, linearizeWkb } from "../../geo/curves.js";
import type { GeometryType } from "../../geo/geometry.js";
import type { ColumnType } from "../../geoparquet/features.js";
import { BATCH_ROWS, BatchBuilder } from "../batch-builder.js";
import type { FileField } from "../batch-builder.js";
import { measureFree, needsMeasureFree } from "../../geo/wkb-measures.js";
import { SourceError } from "../errors.js";
import type { SourceFile, SourceFormat } from "../source-format.js";

const LAYER_TYPES: Record<string, GeometryType> = {
  POINT: "Point",
  LINESTRING: "LineString",
  POLYGON: "Polygon",
  MULTIPOINT: "MultiPoint",
  MULTILINESTRING: "MultiLineString",
  MULTIPOLYGON: "MultiPolygon",
  // Curves are read as the straight segments OGR makes of them (geo/curves.ts).
  CIRCULARSTRING: "LineString",
  COMPOUNDCURVE: "LineString",
  CURVEPOLYGON: "Polygon",
  MULTICURVE: "MultiLineString",
  MULTISURFACE: "MultiPolygon",
};

/** A GeoPackage column's declared type → ours, as GDAL maps them (INTEGER is 64-bit; dates are text). */
function columnType(declared: string): ColumnType | "blob" {
  const t = declared.toUpperCase().replace(/\(.*$/, "").trim();
  if (t === "INTEGER" || t === "INT") return "int64";
  if (t === "MEDIUMINT" || t === "SMALLINT" || t === "TINYINT") return "int32";
  if (t === "BOOLEAN") return "bool";
  if (t === "REAL" || t === "DOUBLE" || t === "FLOAT") return "float64";
  if (t === "BLOB") return "blob";
  return "string"; // TEXT, DATE, DATETIME
}

/** A GeoPackage features table, read row by row (better-sqlite3); its CRS from gpkg_spatial_ref_sys. */
export const gpkgFormat: SourceFormat = {
  name: "gpkg",
  async open(file, options) {
    let db: Database.Database;
    const opened = await readablePath(file);
    try {
      db = new Database(opened.path, { readonly: true, fileMustExist: true });
      db.pragma("query_only = true");
      // Nothing of the file's own SQL runs with powers: no function with side effects from its schema.
      db.pragma("trusted_schema = false");
    } catch (error) {
      await opened.done();
      throw new SourceError(
        `${file.name} cannot be opened as a GeoPackage: ${(error as Error).message}; check the file and "format"`,
      );
    }
    try {
      const layers = (() => {
        try {
          return (
            db
              .prepare("SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY table_name")
              .all() as { table_name: string }[]
          ).map((r) => r.table_name);
        } catch (error) {
          throw new SourceError(
            `${file.name} is not a GeoPackage (${(error as Error).message}); check the file and "format"`,
          );
        }
      })();
      if (options.layer !== undefined && !layers.includes(options.layer)) {
        const kind = db.prepare("SELECT data_type FROM gpkg_contents WHERE table_name = ?").pluck().get(options.layer);
        if (typeof kind === "string")
          throw new SourceError(
            `${file.name}: layer ${JSON.stringify(options.layer)} is a table of ${JSON.stringify(kind)}, not features (no geometry column); name a features layer (${layers.join(", ") || "none"}) with "layer" in the source`,
          );
        throw new SourceError(
          `${file.name} has no features layer ${JSON.stringify(options.layer)} (its layers: ${layers.join(", ") || "none"}); fix "layer" in the source`,
        );
      }
      if (options.layer === undefined && layers.length !== 1)
        throw new SourceError(
          layers.length === 0
            ? `${file.name} has no features layer`
            : `${file.name} has ${layers.length} layers (${layers.join(", ")}); name one with "layer" in the source`,
        );
      const layer = options.layer ?? (layers[0] as string);
      const kind = db.prepare("SELECT type FROM sqlite_master WHERE name = ?").pluck().get(layer);
      if (kind !== "table")
        throw new SourceError(
          kind === "view"
            ? `${file.name}: layer ${JSON.stringify(layer)} is a view (SQL of the file's own, which georefresh does not run); export it as a table first, e.g. ogr2ogr -sql "SELECT * FROM ${layer}" out.gpkg ${file.name.split("/").pop() ?? file.name}`
            : `${file.name}: layer ${JSON.stringify(layer)} is listed in gpkg_contents but is not a table (${String(kind ?? "missing")}); the GeoPackage is damaged`,
        );
      const gc = db
        .prepare("SELECT column_name, geometry_type_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?")
        .get(layer) as { column_name: string; geometry_type_name: string; srs_id: number } | undefined;
      if (!gc)
        throw new SourceError(
          `${file.name}: layer ${JSON.stringify(layer)} has no row in gpkg_geometry_columns; the GeoPackage is damaged`,
        );
      const srs = db
        .prepare(
          "SELECT srs_name, organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?",
        )
        .get(gc.srs_id) as Srs | undefined;
      const crs =
        !srs || gc.srs_id === 0 || gc.srs_id === -1 || undefinedSrs(srs)
          ? undefined
          : srs.organization.toUpperCase() === "EPSG" && knownCrs(srs.organization_coordsys_id)
            ? `EPSG:${srs.organization_coordsys_id}`
            : srs.definition;
      const info = db.prepare(`PRAGMA table_info(${quote(layer)})`).all() as {
        name: string;
        type: string;
        pk: number;
      }[];
      const columns = info.filter((c) => c.name !== gc.column_name && !(c.pk === 1 && columnType(c.type) === "int64"));
      const fields: FileField[] = columns.map((c) => {
        const t = columnType(c.type);
        return t === "blob" ? { name: c.name } : { name: c.name, type: t };
      });
      const emptyType = LAYER_TYPES[gc.geometry_type_name.toUpperCase()] ?? "GeometryCollection";
      return {
        crs,
        crsFrom: `gpkg_spatial_ref_sys, srs_id ${gc.srs_id}`,
        async *batches() {
          const builder = new BatchBuilder(fields, options.columns, `${file.name} layer ${layer}`, emptyType);
          const blobs = columns.map((c, i) => columnType(c.type) === "blob" && builder.wants(i));
          const bad = blobs.indexOf(true);
          if (bad >= 0)
            throw new SourceError(
              `${file.name}: column ${JSON.stringify(columns[bad]?.name)} is a BLOB, which a source cannot keep; leave it out with "columns"`,
            );
          // Text comes as its bytes, so text that is not UTF-8 is refused by the batch, not read as U+FFFD.
          const text = (name: string) =>
            `CASE WHEN typeof(${quote(name)}) = 'text' THEN CAST(${quote(name)} AS BLOB) ELSE ${quote(name)} END`;
          const select = [
            ...columns.map((c) => (columnType(c.type) === "string" ? text(c.name) : quote(c.name))),
            quote(gc.column_name),
            "rowid",
          ].join(", ");
          // A page of rows per call (keyset on rowid, which a GeoPackage's fid is): one crossing into SQLite per
          // batch, where iterating costs one per row.
          const page = db
            .prepare(`SELECT ${select} FROM ${quote(layer)} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH_ROWS}`)
            .raw(true)
            // A 64-bit integer past 2^53 comes back whole (a bigint) only when asked; numbers would round it.
            .safeIntegers(columns.some((c, i) => columnType(c.type) === "int64" && builder.wants(i)));
          let row = 0;
          let after: number | bigint = -(2 ** 53);
          for (;;) {
            const rows = page.all(after) as unknown[][];
            if (rows.length === 0) break;
            for (const values of rows) {
              row++;
              const blob = values[columns.length] as Uint8Array | null;
              // Named by its fid, as OGR counts the layer's features.
              const fid = values[columns.length + 1];
              builder.add(
                blob === null
                  ? null
                  : gpkgWkb(
                      blob,
                      () => `${file.name} layer ${layer}, feature ${String(fid)}`,
                      () => builder.linearized++,
                    ),
                (i) => values[i],
                Number(fid),
              );
              if (builder.full) yield builder.flush() as never;
            }
            after = (rows[rows.length - 1] as unknown[])[columns.length + 1] as number;
          }
          const last = builder.flush();
          if (last) yield last;
        },
        async close() {
          db.close();
          await opened.done();
        },
      };
    } catch (error) {
      db.close();
      await opened.done();
      throw error;
    }
  },
};

/**
 * Where to open the file so SQLite sees what OGR sees and writes nothing beside it. A GeoPackage in WAL mode keeps
 * its latest edits in `<file>-wal` until a checkpoint, and opening one read-only still makes `-wal` and `-shm`
 * files next to it: such a file is read from a private copy of it and its -wal (an input of the task, so an edit
 * that reached only the -wal changes the key). A rollback-journal file is opened where it is.
 */
async function readablePath(file: SourceFile): Promise<{ path: string; done: () => Promise<void> }> {
  const head = Buffer.alloc(20);
  const handle = await open(file.path, "r");
  const { bytesRead } = await handle.read(head, 0, 20, 0).finally(() => handle.close());
  // The SQLite header's read and write format versions: 2 is WAL.
  const wal = bytesRead === 20 && head.toString("latin1", 0, 15) === "SQLite format 3" && head[18] === 2;
  if (!wal) return { path: file.path, done: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), "georefresh-gpkg-"));
  const done = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, "source.gpkg");
    await copyFile(file.path, path);
    const log = await file.sidecar(".gpkg-wal");
    if (log) await copyFile(log, `${path}-wal`);
    return { path, done };
  } catch (error) {
    await done();
    throw error;
  }
}

const ENVELOPE_BYTES = [0, 32, 48, 48, 64];

/** A GeoPackage geometry blob (GP header, optional envelope) → its WKB; null for an empty one GDAL marked so. */
function gpkgWkb(blob: Uint8Array, where: () => string, linearized: () => void): Uint8Array | null {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50)
    throw new SourceError(`${where()}: the geometry is not a GeoPackage geometry blob (no 'GP' magic)`);
  const flags = blob[3] as number;
  const envelope = ENVELOPE_BYTES[(flags >> 1) & 7];
  if (envelope === undefined) throw new SourceError(`${where()}: the geometry blob has an invalid envelope code`);
  if (flags & 0x20)
    throw new SourceError(`${where()}: the geometry is an ExtendedGeoPackageBinary, which georefresh cannot read`);
  const wkb = blob.subarray(8 + envelope);
  if (wkb.length < 5) throw new SourceError(`${where()}: the geometry blob is truncated`);
  const code = new DataView(wkb.buffer, wkb.byteOffset + 1, 4).getUint32(0, wkb[0] === 1);
  const base = (code & 0x0fffffff) % 1000;
  const unread = UNREAD[base];
  if (unread) throw new SourceError(`${where()} is a ${unread[0]}, which georefresh does not read: ${unread[1]}`);
  // Arcs become the straight segments OGR makes of them (M dropped on the way, as measureFree drops it).
  if ((base >= 8 && base <= 12) || (base === 7 && holdsCurve(wkb)))
    try {
      linearized();
      return linearizeWkb(wkb);
    } catch (error) {
      throw new SourceError(`${where()}: its curve cannot be read (${(error as Error).message}); check the file`);
    }
  return needsMeasureFree(wkb) ? measureFree(wkb) : wkb;
}

const LINEARIZE = "convert to straight segments first (ogr2ogr -nlt CONVERT_TO_LINEAR out.gpkg in.gpkg)";
const FACES =
  "a surface of faces that share edges is no valid (multi)polygon; write each face as its own feature (ogr2ogr -explodecollections -nlt POLYGON out.gpkg in.gpkg) or its outline";
/** The WKB base codes of abstract types and surfaces of faces (ISO 13249): refused by name, with the conversion. */
const UNREAD: Record<number, [string, string]> = {
  13: ["Curve", LINEARIZE],
  14: ["Surface", LINEARIZE],
  15: ["PolyhedralSurface", FACES],
  16: ["TIN", FACES],
};

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface Srs {
  srs_name: string | null;
  organization: string;
  organization_coordsys_id: number;
  definition: string;
}

/**
 * A row that says "no CRS": the spec's "undefined" definitions (srs_id 0 and -1), and the placeholder GDAL writes for
 * a layer without one (srs_id 99999, "Undefined SRS", organization GDAL, a LOCAL_CS / ENGCRS definition).
 */
function undefinedSrs(srs: Srs): boolean {
  const definition = srs.definition.trim();
  return (
    definition.toLowerCase() === "undefined" ||
    srs.organization.toUpperCase() === "NONE" ||
    (srs.organization.toUpperCase() === "GDAL" && srs.organization_coordsys_id === 99999) ||
    srs.srs_name === "Undefined SRS" ||
    /^(LOCAL_CS|ENGCRS|ENGINEERINGCRS)\s*\[/i.test(definition)
  );
}
