import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { deserialize } from "flatgeobuf/lib/mjs/geojson.js";
import type { HeaderMeta } from "flatgeobuf/lib/mjs/header-meta.js";
import type { Geometry, GeometryType } from "../geo/geometry.js";
import type { ColumnType } from "../geoparquet/features.js";
import { BatchBuilder } from "./batch-builder.js";
import type { FileField } from "./batch-builder.js";
import { SourceError } from "./errors.js";
import type { SourceFormat } from "./source-format.js";

/** FlatGeobuf column types (flatgeobuf's ColumnType enum, by value) → ours. Binary is refused. */
const TYPES: Record<number, ColumnType | undefined> = {
  0: "int32",
  1: "int32",
  2: "bool",
  3: "int32",
  4: "int32",
  5: "int32",
  6: "int64",
  7: "int64",
  8: "int64",
  9: "float64",
  10: "float64",
  11: "string",
  12: "string",
  13: "string",
};
const GEOMETRY: Record<number, GeometryType | undefined> = {
  1: "Point",
  2: "LineString",
  3: "Polygon",
  4: "MultiPoint",
  5: "MultiLineString",
  6: "MultiPolygon",
  7: "GeometryCollection",
};

/** FlatGeobuf, streamed feature by feature (flatgeobuf's reader); the CRS from the header. */
export const flatgeobufFormat: SourceFormat = {
  name: "flatgeobuf",
  async open(file, options) {
    let header: HeaderMeta | undefined;
    const stream = () => Readable.toWeb(createReadStream(file.path)) as unknown as ReadableStream;
    // The header comes with the first feature; read it alone first so the CRS is known before any row.
    const probe = deserialize(stream(), { headerMetaFn: (h: HeaderMeta) => (header = h) });
    try {
      await probe.next();
    } catch (error) {
      throw corrupt(file.name, error);
    } finally {
      await probe.return(undefined);
    }
    if (!header) throw new SourceError(`${file.name} is not a FlatGeobuf file (no header); check "format"`);
    const h = header;
    const crs = h.crs?.wkt?.trim()
      ? h.crs.wkt
      : h.crs?.org && h.crs.code > 0
        ? `${h.crs.org}:${h.crs.code}`
        : h.crs?.code_string
          ? h.crs.code_string
          : undefined;
    const fields: FileField[] = (h.columns ?? []).map((c) => {
      const type = TYPES[c.type];
      if (!type)
        throw new SourceError(
          `${file.name}: column ${JSON.stringify(c.name)} is binary, which a source cannot keep; leave it out with "columns"`,
        );
      return { name: c.name, type };
    });
    return {
      crs,
      crsFrom: `FlatGeobuf header`,
      async *batches() {
        const builder = new BatchBuilder(fields, options.columns, file.name, GEOMETRY[h.geometryType]);
        const names = fields.map((f) => f.name);
        let row = 0;
        try {
          for await (const f of deserialize(stream())) {
            const props = (f.properties ?? {}) as Record<string, unknown>;
            builder.add((f.geometry as Geometry | null) ?? null, (i) => props[names[i] as string]);
            row++;
            if (builder.full) yield builder.flush() as never;
          }
        } catch (error) {
          if (error instanceof SourceError) throw error;
          throw corrupt(file.name, error, row);
        }
        const last = builder.flush();
        if (last) yield last;
      },
      async close() {},
    };
  },
};

function corrupt(name: string, error: unknown, row?: number): SourceError {
  return new SourceError(
    `${name} cannot be read as FlatGeobuf${row === undefined ? "" : ` after ${row} features`}: ${(error as Error).message}; check the file and "format"`,
  );
}
