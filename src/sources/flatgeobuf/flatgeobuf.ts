import { createReadStream } from "node:fs";
import * as flatbuffers from "flatbuffers";
import { Feature } from "flatgeobuf/lib/mjs/flat-geobuf/feature.js";
import { fromGeometry } from "flatgeobuf/lib/mjs/geojson/geometry.js";
import { fromByteBuffer } from "flatgeobuf/lib/mjs/header-meta.js";
import type { HeaderMeta } from "flatgeobuf/lib/mjs/header-meta.js";
import { calcTreeSize } from "flatgeobuf/lib/mjs/packedrtree.js";
import { ByteReader } from "../byte-reader.js";
import type { Geometry, GeometryType } from "../../geo/geometry.js";
import type { ColumnType } from "../../geoparquet/features.js";
import { BatchBuilder } from "../batch-builder.js";
import type { FileField } from "../batch-builder.js";
import { SourceError } from "../errors.js";
import { fgbProperties } from "./fgb-properties.js";
import { FgbFeature } from "./fgb-raw.js";
import { fgbCurveWkb, fgbWkb } from "./fgb-wkb.js";
import { holdsCurve, linearizeWkb } from "../../geo/curves.js";
import type { SourceFormat } from "../source-format.js";

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
  // Curves are read as the straight segments OGR makes of them (geo/curves.ts).
  8: "LineString",
  9: "LineString",
  10: "Polygon",
  11: "MultiLineString",
  12: "MultiPolygon",
  17: "Polygon",
};

/** FlatGeobuf's abstract and surface-of-faces types (by value), which georefresh does not read: OGR's names. */
const UNREAD: Record<number, string> = {
  13: "Curve",
  14: "Surface",
  15: "PolyhedralSurface",
  16: "TIN",
};

/** A curve or surface layer or feature refused, naming it and the conversion that makes it readable. */
export function unreadGeometry(where: string, type: number): SourceError | undefined {
  const name = UNREAD[type];
  if (!name) return undefined;
  const linear = type <= 14;
  return new SourceError(
    `${where} holds ${name} geometries, which georefresh does not read: ${
      linear
        ? "convert them to straight segments first (ogr2ogr -nlt CONVERT_TO_LINEAR out.fgb in.fgb)"
        : "a surface of faces that share edges is no valid (multi)polygon; write each face as its own feature (ogr2ogr -explodecollections -nlt POLYGON out.fgb in.fgb) or its outline"
    }`,
  );
}

const MAGIC = [0x66, 0x67, 0x62];

/**
 * FlatGeobuf, read feature by feature from the file in large chunks (the flatgeobuf package's stream reader awaits
 * twice per feature, which cost more than everything else): its header, index (skipped) and size-prefixed
 * features framed here, each feature's flatbuffer read in place, its geometry written straight to WKB
 * (fgb-wkb.ts) and its properties decoded here (fgb-properties.ts). The CRS is the header's.
 */
export const flatgeobufFormat: SourceFormat = {
  name: "flatgeobuf",
  async open(file, options) {
    const reader = new ByteReader(createReadStream(file.path, { highWaterMark: 1 << 20 }));
    let header: HeaderMeta;
    try {
      const magic = await reader.read(8);
      if (magic.length < 8 || !MAGIC.every((b, i) => magic[i] === b))
        throw new SourceError(
          `${file.name} is not a FlatGeobuf file (no 'fgb' magic bytes); check the file and "format"`,
        );
      const sizeBytes = await reader.read(4);
      const size = new DataView(sizeBytes.buffer, sizeBytes.byteOffset, 4).getUint32(0, true);
      const body = await reader.read(size);
      if (sizeBytes.length < 4 || body.length < size)
        throw new SourceError(`${file.name}: the FlatGeobuf header is truncated`);
      const framed = new Uint8Array(4 + size);
      framed.set(sizeBytes);
      framed.set(body, 4);
      try {
        header = fromByteBuffer(new flatbuffers.ByteBuffer(framed));
      } catch (error) {
        throw corrupt(file.name, error);
      }
      // No features, no index (calcTreeSize never ends on 0): a header may still claim a node size.
      if (header.indexNodeSize > 0 && header.featuresCount > 0) {
        const index = calcTreeSize(header.featuresCount, header.indexNodeSize);
        if ((await reader.read(index)).length < index)
          throw new SourceError(`${file.name}: the FlatGeobuf index is truncated`);
      }
    } catch (error) {
      await reader.close();
      throw error;
    }
    const h = header;
    const unread = unreadGeometry(file.name, h.geometryType);
    if (unread) {
      await reader.close();
      throw unread;
    }
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
        // One feature view and one values array for every row (fgb-raw.ts, fgb-properties.ts).
        const raw = new FgbFeature();
        const values: unknown[] = new Array(fields.length).fill(null);
        const valueOf = (i: number) => values[i];
        let row = 0;
        for (;;) {
          const sizeBytes = reader.buffered(4) ?? (await reader.read(4));
          if (sizeBytes.length === 0) break;
          const size =
            sizeBytes.length === 4 ? new DataView(sizeBytes.buffer, sizeBytes.byteOffset, 4).getUint32(0, true) : -1;
          const body = size < 0 ? new Uint8Array(0) : (reader.buffered(size) ?? (await reader.read(size)));
          if (size < 0 || body.length < size)
            throw new SourceError(`${file.name}: the FlatGeobuf file is truncated after ${row} features`);
          let geometry: Geometry | Uint8Array | null;
          values.fill(null);
          try {
            const f = raw.at(body);
            const g = f.geometry();
            const unread =
              g >= 0 && h.geometryType === 0 && unreadGeometry(`${file.name}, feature ${row + 1},`, f.geometryType(g));
            if (unread) throw unread;
            // Straight to WKB where it can be (fgb-wkb.ts); empties and collections through the package's objects,
            // over a copy aligned for their Float64Array views.
            const type = g < 0 ? 0 : h.geometryType || f.geometryType(g);
            const curve = (type >= 8 && type <= 12) || type === 7 ? fgbCurveWkb(f, g, type) : undefined;
            if (curve && holdsCurve(curve)) {
              geometry = linearizeWkb(curve);
              builder.linearized++;
            } else if (type >= 8 && type <= 12) geometry = null;
            else
              geometry = g < 0 ? null : (fgbWkb(f, g, h.geometryType) ?? viaGeoJson(sizeBytes, body, h.geometryType));
            fgbProperties(f.properties(), h.columns, values);
          } catch (error) {
            throw corrupt(file.name, error, row);
          }
          row++;
          builder.add(geometry, valueOf, row - 1);
          if (builder.full) yield builder.flush() as never;
        }
        const last = builder.flush();
        if (last) yield last;
      },
      close: () => reader.close(),
    };
  },
};

/** A feature's geometry as the flatgeobuf package reads it (null when it has none). */
function viaGeoJson(sizeBytes: Uint8Array, body: Uint8Array, headerType: number): Geometry | null {
  const framed = new Uint8Array(4 + body.length);
  framed.set(sizeBytes);
  framed.set(body, 4);
  const g = Feature.getSizePrefixedRootAsFeature(new flatbuffers.ByteBuffer(framed)).geometry();
  return g ? (fromGeometry(g, headerType) as Geometry) : null;
}

function corrupt(name: string, error: unknown, row?: number): SourceError {
  if (error instanceof SourceError) return error;
  return new SourceError(
    `${name} cannot be read as FlatGeobuf${row === undefined ? "" : ` after ${row} features`}: ${(error as Error).message}; check the file and "format"`,
  );
}
