import { DataType, Table, tableFromIPC } from "apache-arrow";
import type { Schema } from "apache-arrow";
import * as parquet from "parquet-wasm";
import { longestDictionaryValues } from "./dictionary-bound.js";
import { zstdReady } from "./zstd-pages.js";
import { parseGeoMetadata } from "./metadata.js";
import type { GeoMetadata } from "./metadata.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export class GeoParquetReadError extends GeorefreshError {
  override readonly code: ErrorCode = "GeoParquetRead";
}

/** Footer facts of a (Geo)Parquet file, read without decoding any data page. */
export interface ParquetFooter {
  rows: number;
  rowGroups: number[]; // rows per row group
  createdBy: string | undefined;
  keyValue: Map<string, string>;
  schema: Schema;
  /**
   * Per row group, per top-level column: the uncompressed bytes the footer declares, a bound on what they can
   * decode to (the same, except that a dictionary-encoded chunk may repeat its longest value in every row), and
   * the size of one value that bound assumes (for decoding in batches that stay under the limit).
   */
  decodedBytes: Map<string, ChunkSize>[];
}

/**
 * The most a single decode may declare uncompressed (bytes; GEOREFRESH_MAX_DECODE_BYTES, default 1 GiB): a few
 * MB of zstd can expand to gigabytes, so the sizes the footer declares are checked before anything is decoded.
 * A file that understates them fails inside the decoder, which checks each page's decompressed length.
 */
export function maxDecodeBytes(): number {
  const set = Number(process.env.GEOREFRESH_MAX_DECODE_BYTES);
  return Number.isFinite(set) && set > 0 ? set : 2 ** 30;
}

function wrap<T>(where: string, what: string, f: () => T): T {
  try {
    return f();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // A wasm allocation failure is not a corrupt file: say what it is.
    if (
      error instanceof RangeError ||
      /out of memory|memory access out of bounds|unreachable|capacity overflow|allocat/i.test(detail)
    ) {
      throw new GeoParquetReadError(
        `${where}: ran out of memory to ${what} (${detail}); the file decodes to more than this process can hold. Lower GEOREFRESH_MAX_DECODE_BYTES to refuse such files up front`,
      );
    }
    // Arrow's Parquet reader checks text is UTF-8 (never U+FFFD): a code page's bytes, not a broken file.
    if (/non UTF-8 data/i.test(detail))
      throw new GeoParquetReadError(
        `${where}: a text column holds bytes that are not UTF-8 (${detail.replace(/^.*?(encountered non UTF-8)/i, "$1")}): its writer stored another code page's bytes in a UTF-8 column; write the file again from a source read in its own encoding, or leave the column out with "columns"`,
      );
    throw new GeoParquetReadError(
      `${where}: cannot ${what}: ${detail}; the file is not valid Parquet (truncated or corrupted?)`,
    );
  }
}

function checkMagic(bytes: Uint8Array, where: string): void {
  const par1 = (at: number) =>
    bytes[at] === 0x50 && bytes[at + 1] === 0x41 && bytes[at + 2] === 0x52 && bytes[at + 3] === 0x31;
  if (bytes.byteLength < 12 || !par1(0))
    throw new GeoParquetReadError(`${where} is not a Parquet file: it does not start with the 'PAR1' magic`);
  if (!par1(bytes.byteLength - 4))
    throw new GeoParquetReadError(`${where} is truncated: it does not end with the 'PAR1' footer magic`);
}

/**
 * What each column chunk can decode to. Only a dictionary of variable-width values can expand far beyond its
 * declared size; when such a chunk's crude bound (every row its whole size) passes the limit, its dictionary
 * page is read to bound it by its longest value instead (dictionary-bound.ts).
 */
async function chunkSizes(
  bytes: Uint8Array,
  meta: parquet.ParquetMetaData,
  fixed: Set<string>,
): Promise<Map<string, ChunkSize>[]> {
  const crude = meta.rowGroups().map((g) =>
    g.columns().map((c) => {
      const top = c.columnPath()[0] ?? "";
      const declared = c.uncompressedSize();
      const dictionary = c
        .encodings()
        .some((e) => e === parquet.Encoding.PLAIN_DICTIONARY || e === parquet.Encoding.RLE_DICTIONARY);
      const rows = Math.max(1, c.numValues());
      const expands = dictionary && !fixed.has(top);
      return {
        top,
        declared,
        rows,
        expands,
        bound: !dictionary ? declared : fixed.has(top) ? Math.max(declared, 16 * rows) : declared * rows,
      };
    }),
  );
  const cap = maxDecodeBytes();
  let longest: Map<string, number>[] = [];
  const needed = crude.some((g) => g.some((c) => c.expands && c.bound > cap));
  // Dictionary pages are decompressed by zstd-wasm, loaded only by a thread that needs it (once).
  if (needed) await zstdReady();
  try {
    if (needed) longest = longestDictionaryValues(bytes, cap);
  } catch {
    // A footer the second parser cannot read: stay with the crude bounds (decoding then streams and counts).
  }
  return crude.map((g, i) => {
    const sizes = new Map<string, ChunkSize>();
    for (const c of g) {
      const known = c.expands ? longest[i]?.get(c.top) : undefined;
      // Offsets are 4 bytes a value in Arrow; the chunk's own declared bytes cover any pages written plain.
      const bound = known === undefined ? c.bound : c.declared + c.rows * (known + 4);
      const value = c.expands ? (known === undefined ? c.declared : known + 4) : 0;
      const was = sizes.get(c.top) ?? { declared: 0, bound: 0, value: 0 };
      sizes.set(c.top, {
        declared: was.declared + c.declared,
        bound: was.bound + bound,
        value: Math.max(was.value, value),
      });
    }
    return sizes;
  });
}

const FIXED_WIDTH = [
  DataType.isInt,
  DataType.isFloat,
  DataType.isBool,
  DataType.isDate,
  DataType.isTimestamp,
  DataType.isTime,
  DataType.isDecimal,
  DataType.isInterval,
  DataType.isDuration,
];

export interface ChunkSize {
  declared: number;
  bound: number;
  /** The largest one value can be: the longest dictionary value, or the chunk's size when that is not known. */
  value: number;
}

export async function readFooter(bytes: Uint8Array, where: string): Promise<ParquetFooter> {
  checkMagic(bytes, where);
  let file: parquet.ParquetFile;
  try {
    file = await parquet.ParquetFile.fromFile(new Blob([bytes]));
  } catch (error) {
    throw new GeoParquetReadError(
      `${where}: cannot read the Parquet footer: ${error instanceof Error ? error.message : String(error)}; the file is truncated or corrupted`,
    );
  }
  try {
    const meta = file.metadata();
    const fileMeta = meta.fileMetadata();
    const schemaTable = tableFromIPC(wrap(where, "read the schema", () => parquet.readSchema(bytes).intoIPCStream()));
    // Fixed-width values decode to at most 16 bytes each whatever their encoding; only variable-width ones can
    // be repeated from a dictionary into gigabytes.
    const fixed = new Set(
      schemaTable.schema.fields.filter((f) => FIXED_WIDTH.some((is) => is(f.type))).map((f) => f.name),
    );
    return {
      rows: fileMeta.numRows(),
      rowGroups: meta.rowGroups().map((g) => g.numRows()),
      decodedBytes: await chunkSizes(bytes, meta, fixed),
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
export async function readGeoParquet(
  bytes: Uint8Array,
  where: string,
  options: { rowGroups?: number[]; columns?: string[] } = {},
): Promise<GeoParquetContents> {
  const footer = await readFooter(bytes, where);
  const geo = parseGeoMetadata(footer.keyValue.get("geo"), where);
  const table = await decode(bytes, where, footer, options);
  return { table, geo, footer };
}

/** Yields one Arrow table per row group, so a large file never has to be decoded at once. */
export async function* readRowGroups(
  bytes: Uint8Array,
  where: string,
  options: { columns?: string[] } = {},
): AsyncGenerator<{ index: number; firstRow: number; table: Table }> {
  const footer = await readFooter(bytes, where);
  let firstRow = 0;
  for (const [index, rows] of footer.rowGroups.entries()) {
    yield { index, firstRow, table: await decode(bytes, where, footer, { ...options, rowGroups: [index] }) };
    firstRow += rows;
  }
}

async function decode(
  bytes: Uint8Array,
  where: string,
  footer: ParquetFooter,
  options: { rowGroups?: number[]; columns?: string[] },
): Promise<Table> {
  const groups = options.rowGroups ?? footer.rowGroups.map((_, i) => i);
  const cap = maxDecodeBytes();
  const sizes = (g: number) =>
    [...(footer.decodedBytes[g] ?? [])]
      .filter(([column]) => !options.columns || options.columns.includes(column))
      .map(([, s]) => s);
  const declared = groups.reduce((n, g) => n + sizes(g).reduce((m, s) => m + s.declared, 0), 0);
  const bound = groups.reduce((n, g) => n + sizes(g).reduce((m, s) => m + s.bound, 0), 0);
  const refuse = (what: string) =>
    new GeoParquetReadError(
      `${where}: refusing to decode ${what}, over the limit of ${mib(cap)} MiB (GEOREFRESH_MAX_DECODE_BYTES). It may be a decompression bomb; if the file is genuine, raise the limit`,
    );
  const scope = `${groups.length === 1 ? `row group ${groups[0]}` : `${groups.length} row groups`}${options.columns ? ` of ${options.columns.join(", ")}` : ""}`;
  if (declared > cap) throw refuse(`${mib(declared)} MiB (what the footer declares for ${scope})`);
  if (bound <= cap)
    return toTable(
      wrap(where, "decode the data", () =>
        parquet.readParquet(bytes, { ...options, batchSize: 65_536 }).intoIPCStream(),
      ),
    );
  // A dictionary may repeat a large value in many rows, so what it decodes to is known only by decoding: stream
  // batches small enough that one cannot pass the limit alone (by the largest a value can be), count, stop.
  const file = await parquet.ParquetFile.fromFile(new Blob([bytes])).catch((error: unknown) =>
    wrap(where, "read the Parquet footer", () => Promise.reject(error)),
  );
  const tables: Table[] = [];
  let total = 0;
  try {
    for (const g of groups) {
      const largest = Math.max(1, ...sizes(g).map((s) => s.value));
      const batchSize = Math.max(1, Math.min(65_536, Math.floor(cap / 8 / largest)));
      const stream = await file
        .stream({ ...options, rowGroups: [g], batchSize })
        .catch((error: unknown) => wrap(where, "decode the data", () => Promise.reject(error)));
      for await (const batch of stream as AsyncIterable<parquet.RecordBatch>) {
        total += batch.getArrayMemorySize();
        if (total > cap) {
          batch.free();
          throw refuse(`more than ${mib(cap)} MiB (${scope} repeats dictionary values: ${mib(declared)} MiB declared)`);
        }
        tables.push(toTable(wrap(where, "decode the data", () => batch.intoIPCStream())));
      }
    }
  } finally {
    file.free();
  }
  return tables.length === 1 ? (tables[0] as Table) : new Table(tables.flatMap((t) => t.batches));
}

const mib = (n: number) => (n / 2 ** 20).toFixed(0);

function toTable(ipc: Uint8Array): Table {
  const table = tableFromIPC(ipc);
  table.schema.metadata.clear();
  return table;
}
