import { tableFromIPC } from "apache-arrow";
import type { Schema, Table } from "apache-arrow";
import * as parquet from "parquet-wasm";
import { parseGeoMetadata } from "./metadata.js";
import type { GeoMetadata } from "./metadata.js";

export class GeoParquetReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GeoParquetReadError";
  }
}

/** Footer facts of a (Geo)Parquet file, read without decoding any data page. */
export interface ParquetFooter {
  rows: number;
  rowGroups: number[]; // rows per row group
  createdBy: string | undefined;
  keyValue: Map<string, string>;
  schema: Schema;
}

function wrap<T>(where: string, what: string, f: () => T): T {
  try {
    return f();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new GeoParquetReadError(`${where}: cannot ${what}: ${detail}; the file is not valid Parquet (truncated or corrupted?)`);
  }
}

function checkMagic(bytes: Uint8Array, where: string): void {
  const par1 = (at: number) => bytes[at] === 0x50 && bytes[at + 1] === 0x41 && bytes[at + 2] === 0x52 && bytes[at + 3] === 0x31;
  if (bytes.byteLength < 12 || !par1(0)) throw new GeoParquetReadError(`${where} is not a Parquet file: it does not start with the 'PAR1' magic`);
  if (!par1(bytes.byteLength - 4)) throw new GeoParquetReadError(`${where} is truncated: it does not end with the 'PAR1' footer magic`);
}

export async function readFooter(bytes: Uint8Array, where: string): Promise<ParquetFooter> {
  checkMagic(bytes, where);
  let file: parquet.ParquetFile;
  try {
    file = await parquet.ParquetFile.fromFile(new Blob([bytes]));
  } catch (error) {
    throw new GeoParquetReadError(`${where}: cannot read the Parquet footer: ${error instanceof Error ? error.message : String(error)}; the file is truncated or corrupted`);
  }
  try {
    const meta = file.metadata();
    const fileMeta = meta.fileMetadata();
    const schemaTable = tableFromIPC(wrap(where, "read the schema", () => parquet.readSchema(bytes).intoIPCStream()));
    return {
      rows: fileMeta.numRows(),
      rowGroups: meta.rowGroups().map((g) => g.numRows()),
      createdBy: fileMeta.createdBy(),
      keyValue: new Map([...fileMeta.keyValueMetadata()].map(([k, v]) => [String(k), String(v)])),
      schema: schemaTable.schema,
    };
  } finally {
    file.free();
  }
}

export interface GeoParquetContents {
  table: Table;
  geo: GeoMetadata;
  footer: ParquetFooter;
}

/** Reads a whole GeoParquet file; `rowGroups` limits it to some groups. Schema metadata is stripped. */
export async function readGeoParquet(bytes: Uint8Array, where: string, options: { rowGroups?: number[]; columns?: string[] } = {}): Promise<GeoParquetContents> {
  const footer = await readFooter(bytes, where);
  const geo = parseGeoMetadata(footer.keyValue.get("geo"), where);
  const table = decode(bytes, where, options);
  return { table, geo, footer };
}

/** Yields one Arrow table per row group, so a large file never has to be decoded at once. */
export async function* readRowGroups(bytes: Uint8Array, where: string, options: { columns?: string[] } = {}): AsyncGenerator<{ index: number; firstRow: number; table: Table }> {
  const footer = await readFooter(bytes, where);
  let firstRow = 0;
  for (const [index, rows] of footer.rowGroups.entries()) {
    yield { index, firstRow, table: decode(bytes, where, { ...options, rowGroups: [index] }) };
    firstRow += rows;
  }
}

function decode(bytes: Uint8Array, where: string, options: { rowGroups?: number[]; columns?: string[] }): Table {
  const ipc = wrap(where, "decode the data", () => parquet.readParquet(bytes, { ...options, batchSize: 65_536 }).intoIPCStream());
  const table = tableFromIPC(ipc);
  table.schema.metadata.clear();
  return table;
}
