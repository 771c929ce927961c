import { open } from "node:fs/promises";
import type { Vector } from "apache-arrow";
import type { ColumnType } from "../../geoparquet/features.js";
import { openRanged } from "../../geoparquet/ranged-read.js";
import type { RangeSource } from "../../geoparquet/ranged-read.js";
import { BatchBuilder } from "../batch-builder.js";
import type { FileField } from "../batch-builder.js";
import { SourceError } from "../errors.js";
import type { SourceFormat } from "../source-format.js";

const CHUNK = 8 * 2 ** 20;

/** An Arrow type → ours; lists, structs and binary are refused (leave them out with "columns"). */
function columnType(type: string): ColumnType | undefined {
  if (/^(Utf8|LargeUtf8|Dictionary<.*Utf8>|Date|Timestamp)/.test(type)) return "string";
  if (/^(Int8|Int16|Int32|Uint8|Uint16)$/.test(type)) return "int32";
  if (/^(Int64|Uint32|Uint64)$/.test(type)) return "int64";
  if (/^(Float16|Float32|Float64|Decimal)/.test(type)) return "float64";
  if (type === "Bool") return "bool";
  return undefined;
}

/** GeoParquet (1.0, 1.1, 2.0 WKB), read one row group at a time by byte ranges; its CRS from the PROJJSON. */
export const geoparquetFormat: SourceFormat = {
  name: "geoparquet",
  async open(file, options) {
    const handle = await open(file.path, "r");
    const source: RangeSource = {
      size: (await handle.stat()).size,
      async read(offset, length) {
        const out = new Uint8Array(length);
        const { bytesRead } = await handle.read(out, 0, length, offset);
        return out.subarray(0, bytesRead);
      },
    };
    try {
      const ranged = await openRanged(source, file.name, { chunkBytes: CHUNK }).catch((error: unknown) => {
        throw new SourceError(
          `${file.name} cannot be read as GeoParquet: ${(error as Error).message}; check the file and "format"`,
        );
      });
      const primary = ranged.geo.primary_column;
      const meta = ranged.geo.columns[primary];
      if (!meta || meta.encoding.toUpperCase() !== "WKB")
        throw new SourceError(
          `${file.name}: the geometry column ${JSON.stringify(primary)} is ${meta?.encoding ?? "missing"}-encoded; georefresh reads WKB GeoParquet`,
        );
      const hasCrs = "crs" in meta && meta.crs !== undefined;
      // A covering column (the bbox struct) is derived from the geometry: the artifact writes its own.
      const covering = new Set(
        Object.values(ranged.geo.columns).flatMap((c) =>
          Object.values((c as { covering?: { bbox?: Record<string, string[]> } }).covering?.bbox ?? {}).map(
            (path) => path[0],
          ),
        ),
      );
      const columns = ranged.columns.filter((c) => c !== primary && !covering.has(c) && !(c in ranged.geo.columns));
      let fields: FileField[] | undefined;
      return {
        crs: hasCrs && meta.crs !== null ? meta.crs : undefined,
        crsFrom: `the geo metadata's crs`,
        ...(hasCrs ? {} : { impliedCrs: "OGC:CRS84" }),
        async *batches() {
          let builder: BatchBuilder | undefined;
          // Only the geometry and the kept columns are decoded: a column left out cannot fail the read.
          const select = options.columns;
          const projected = select ? [primary, ...columns.filter((c) => Object.hasOwn(select, c))] : undefined;
          for await (const group of ranged.rowGroups(projected)) {
            const table = group.table;
            if (!fields) {
              fields = columns.map((name) => {
                const type = table.getChild(name)?.type;
                return { name, type: columnType(String(type)) ?? "string" };
              });
              builder = new BatchBuilder(fields, options.columns, file.name);
              columns.forEach((name, i) => {
                const t = String(table.getChild(name)?.type);
                if (builder?.wants(i) && !columnType(t))
                  throw new SourceError(
                    `${file.name}: column ${JSON.stringify(name)} is ${t}, which a source cannot keep; leave it out with "columns"`,
                  );
              });
            }
            const b = builder as BatchBuilder;
            const vectors = columns.map((name) => table.getChild(name) as Vector);
            const geometry = table.getChild(primary) as Vector;
            for (let r = 0; r < table.numRows; r++) {
              b.add((geometry.get(r) as Uint8Array | null) ?? null, (i) => (vectors[i] as Vector).get(r) as unknown);
              if (b.full) yield b.flush() as never;
            }
          }
          const last = builder?.flush();
          if (last) yield last;
        },
        async close() {
          await handle.close();
        },
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  },
};
