import { tableToIPC } from "apache-arrow";
import type { Table } from "apache-arrow";
import * as parquet from "parquet-wasm";
import { zstdPages } from "./zstd-pages.js";

/**
 * One row group → one complete Parquet file: parquet-rs (in parquet-wasm) encodes it uncompressed, zstd-wasm
 * compresses its pages (zstd-pages.ts). The writer encodes groups here, on its own thread or on encode workers,
 * and splices them into one file (splice.ts). Call zstdReady() first.
 */

/** Pinned into every file's created_by; see WRITER_ID in write.ts. */
export interface EncodeSettings {
  createdBy: string;
  geo: string;
  rowGroupRows: number;
  geometryColumn: string;
  stringColumns: string[];
  /** Every top-level column but the covering. */
  topLevelColumns: string[];
  /** Whether the covering's leaves may be BYTE_STREAM_SPLIT: no other column is nested. */
  splitCovering: boolean;
  /** Key-value metadata beside "geo" (e.g. the rows a task dropped), in order; absent in most files. */
  keyValue?: [string, string][];
}

/** The writer properties (parquet-wasm consumes them, so one set per use). */
function writerProperties(s: EncodeSettings): parquet.WriterProperties {
  let builder = new parquet.WriterPropertiesBuilder()
    .setCreatedBy(s.createdBy)
    .setCompression(parquet.Compression.UNCOMPRESSED) // zstd comes after, outside parquet-wasm
    .setDictionaryEnabled(false)
    .setMaxRowGroupSize(s.rowGroupRows)
    .setKeyValueMetadata(new Map([["geo", s.geo], ...(s.keyValue ?? [])]));
  // Repeated strings (names, codes) shrink a lot with a dictionary; geometry and numbers do not.
  for (const name of s.stringColumns) builder = builder.setColumnDictionaryEnabled(name, true);
  // Min/max of WKB bytes prunes nothing (the bbox covering columns carry the useful statistics); skip the work.
  builder = builder.setColumnStatisticsEnabled(s.geometryColumn, parquet.EnabledStatistics.None);
  // The float32 covering compresses a third smaller split into byte streams (its high bytes repeat along the
  // spatial order). parquet-wasm can only name top-level columns, so BYTE_STREAM_SPLIT is the default and every
  // top-level column keeps PLAIN; a table with nested columns of its own keeps PLAIN everywhere (docs/geoparquet.md).
  if (s.splitCovering) {
    builder = builder.setEncoding(parquet.Encoding.BYTE_STREAM_SPLIT);
    for (const name of s.topLevelColumns) builder = builder.setColumnEncoding(name, parquet.Encoding.PLAIN);
  }
  return builder.build();
}

/** Arrow IPC stream bytes of one row group → a Parquet file holding exactly that row group. */
export function encodeIpcGroup(ipc: Uint8Array, settings: EncodeSettings): Uint8Array {
  return zstdPages(parquet.writeParquet(parquet.Table.fromIPCStream(ipc), writerProperties(settings)));
}

export function groupIpc(group: Table): Uint8Array {
  return tableToIPC(group, "stream");
}
