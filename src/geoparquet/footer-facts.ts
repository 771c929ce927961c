import { splitFooter, topLevelElements } from "./footer.js";
import { field, listField, structField, text } from "./thrift.js";
import type { ThriftStruct } from "./thrift.js";

/**
 * What `validate` needs from a Parquet footer beyond the Arrow schema: physical and logical types, repetition,
 * codecs, which chunks carry min/max statistics, and the native geospatial statistics. Read with our lossless
 * Thrift decoder (thrift.ts), so files from any writer are seen exactly as written.
 */

export interface LogicalGeo {
  kind: "GEOMETRY" | "GEOGRAPHY";
  crs: string | undefined;
  /** GEOGRAPHY's edge interpolation; undefined means spherical (the default). */
  algorithm: string | undefined;
}

export interface TopLevelColumn {
  name: string;
  /** Parquet physical type name, or undefined for a group. */
  physical: string | undefined;
  repetition: "REQUIRED" | "OPTIONAL" | "REPEATED" | undefined;
  children: number;
  geo: LogicalGeo | undefined;
  /** Set when the column has a logical type that is neither GEOMETRY nor GEOGRAPHY. */
  otherLogical: boolean;
}

export interface GeoStatistics {
  bbox: { xmin: number; xmax: number; ymin: number; ymax: number } | undefined;
  types: number[];
}

export interface ChunkFacts {
  path: string[];
  codec: string;
  minMax: boolean;
  geo: GeoStatistics | undefined;
}

export interface RowGroupFacts {
  rows: number;
  columns: ChunkFacts[];
}

export interface FooterFacts {
  columns: Map<string, TopLevelColumn>;
  rowGroups: RowGroupFacts[];
}

const PHYSICAL = ["BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"];
const REPETITION = ["REQUIRED", "OPTIONAL", "REPEATED"] as const;
const CODEC = ["UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"];
const ALGORITHM = ["SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY"];

const num = (v: unknown): number | undefined =>
  typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined;

function logicalGeo(el: ThriftStruct): { geo: LogicalGeo | undefined; other: boolean } {
  const lt = structField(el, 10);
  if (!lt) return { geo: undefined, other: false };
  const g = structField(lt, 17);
  if (g) return { geo: { kind: "GEOMETRY", crs: text(field(g, 1)), algorithm: undefined }, other: false };
  const gg = structField(lt, 18);
  if (gg) {
    const a = num(field(gg, 2));
    return {
      geo: {
        kind: "GEOGRAPHY",
        crs: text(field(gg, 1)),
        algorithm: a === undefined ? undefined : (ALGORITHM[a] ?? `#${a}`),
      },
      other: false,
    };
  }
  return { geo: undefined, other: lt.fields.length > 0 };
}

function topLevel(schema: ThriftStruct[]): Map<string, TopLevelColumn> {
  const out = new Map<string, TopLevelColumn>();
  for (const [name, el] of topLevelElements(schema)) {
    const t = num(field(el, 1));
    const r = num(field(el, 3));
    const { geo, other } = logicalGeo(el);
    out.set(name, {
      name,
      physical: t === undefined ? undefined : PHYSICAL[t],
      repetition: r === undefined ? undefined : REPETITION[r],
      children: num(field(el, 5)) ?? 0,
      geo,
      otherLogical: other,
    });
  }
  return out;
}

function chunkFacts(chunk: ThriftStruct): ChunkFacts | undefined {
  const meta = structField(chunk, 3);
  if (!meta) return undefined;
  const stats = structField(meta, 12);
  const has = (id: number) => stats?.fields.some((f) => f.id === id) ?? false;
  const gs = structField(meta, 17);
  const box = gs && structField(gs, 1);
  const d = (id: number) => num(box && field(box, id));
  return {
    path: listField(meta, 3).map((p) => text(p) ?? ""),
    codec: CODEC[num(field(meta, 4)) ?? -1] ?? "UNKNOWN",
    minMax: (has(5) && has(6)) || (has(1) && has(2)),
    geo: gs && {
      bbox: box
        ? { xmin: d(1) as number, xmax: d(2) as number, ymin: d(3) as number, ymax: d(4) as number }
        : undefined,
      types: listField(gs, 2).map((v) => num(v) as number),
    },
  };
}

export function footerFacts(bytes: Uint8Array): FooterFacts {
  const { metadata } = splitFooter(bytes);
  return {
    columns: topLevel(listField(metadata, 2) as ThriftStruct[]),
    rowGroups: (listField(metadata, 4) as ThriftStruct[]).map((rg) => ({
      rows: num(field(rg, 3)) ?? 0,
      columns: (listField(rg, 1) as ThriftStruct[]).flatMap((c) => chunkFacts(c) ?? []),
    })),
  };
}
