import { createHash } from "node:crypto";
import type { Table } from "apache-arrow";
import { joinFooter } from "./footer.js";
import { parseGeoMetadata } from "./metadata.js";
import type { GeoMetadata } from "./metadata.js";
import { GeoParquetReadError, readGeoParquet } from "./read.js";
import { shiftChunk } from "./splice.js";
import { decodeStruct, field, listField, setField, structField, T, text } from "./thrift.js";
import type { ThriftList, ThriftStruct } from "./thrift.js";

/**
 * A Parquet file read by byte ranges, one row group at a time, so that checking a file of any size holds one row
 * group (docs/large-partitions.md). Each group is decoded as a file of its own: its column chunks behind a footer
 * that names only it, offsets moved, page indexes left out. Every byte of the file passes through one sha256 in
 * file order, so the hash is of exactly what was read.
 */

export interface RangeSource {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface RangedGroup {
  index: number;
  firstRow: number;
  rows: number;
  table: Table;
}

const FILE = { schema: 2, numRows: 3, rowGroups: 4, keyValue: 5 } as const;
const ELEMENT = { name: 4, children: 5 } as const;

/** The top-level column names of a footer's flattened schema (the root's children, skipping nested leaves). */
function topLevelColumns(metadata: ThriftStruct): string[] {
  const elements = listField(metadata, FILE.schema) as ThriftStruct[];
  const names: string[] = [];
  const children = (e: ThriftStruct | undefined) => n(field(e as ThriftStruct, ELEMENT.children) ?? 0) || 0;
  let at = 1;
  const skip = (e: ThriftStruct | undefined) => {
    let rest = children(e);
    while (rest-- > 0) skip(elements[at++]);
  };
  for (let c = children(elements[0]); c > 0 && at < elements.length; c--) {
    const e = elements[at++];
    names.push(text(field(e as ThriftStruct, ELEMENT.name)) ?? "");
    skip(e);
  }
  return names;
}
const RG = { columns: 1, numRows: 3 } as const;
const META = { totalCompressed: 7, dataPage: 9, dictionaryPage: 11 } as const;
const n = (v: unknown) => (typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : NaN);

/** The bytes [start, end) a row group's column chunks span. */
function groupSpan(group: ThriftStruct): [number, number] {
  let start = Infinity;
  let end = -Infinity;
  for (const chunk of listField(group, RG.columns) as ThriftStruct[]) {
    const meta = structField(chunk, 3);
    if (!meta) continue;
    const dict = field(meta, META.dictionaryPage);
    const first = Math.min(n(field(meta, META.dataPage)), dict === undefined ? Infinity : n(dict));
    start = Math.min(start, first);
    end = Math.max(end, first + n(field(meta, META.totalCompressed)));
  }
  return [start, end];
}

/** Hashes every byte in file order, reading the gaps between the ranges asked for. */
class OrderedReader {
  private at = 0;
  private readonly hash = createHash("sha256");
  constructor(
    private readonly source: RangeSource,
    private readonly chunkBytes: number,
  ) {}

  private async pass(bytes: Uint8Array): Promise<void> {
    this.hash.update(bytes);
    this.at += bytes.byteLength;
  }

  async skipTo(offset: number): Promise<void> {
    while (this.at < offset)
      await this.pass(await this.source.read(this.at, Math.min(this.chunkBytes, offset - this.at)));
  }

  async take(offset: number, length: number): Promise<Uint8Array> {
    await this.skipTo(offset);
    const bytes = await this.source.read(offset, length);
    await this.pass(bytes);
    return bytes;
  }

  async finish(): Promise<string> {
    await this.skipTo(this.source.size);
    return this.hash.digest("hex");
  }
}

export interface RangedFile {
  geo: GeoMetadata;
  /** Top-level column names, from the footer. */
  columns: string[];
  rows: number;
  groups: number;
  /** Decodes each row group in file order; `sha256` resolves once the last byte has been read. */
  rowGroups(columns?: string[]): AsyncGenerator<RangedGroup>;
  sha256(): Promise<string>;
}

export async function openRanged(
  source: RangeSource,
  where: string,
  options: { chunkBytes: number },
): Promise<RangedFile> {
  const size = source.size;
  if (size < 12) throw new GeoParquetReadError(`${where} is not a Parquet file: it holds ${size} bytes`);
  const tail = await source.read(size - 8, 8);
  const footerLength = new DataView(tail.buffer, tail.byteOffset, 8).getUint32(0, true);
  if (new TextDecoder().decode(tail.subarray(4)) !== "PAR1")
    throw new GeoParquetReadError(`${where} is truncated: it does not end with the 'PAR1' footer magic`);
  const footerStart = size - 8 - footerLength;
  if (footerStart < 4)
    throw new GeoParquetReadError(`${where}: the footer claims ${footerLength} bytes, more than the file holds`);
  const footer = await source.read(footerStart, footerLength);
  let metadata: ThriftStruct;
  try {
    metadata = decodeStruct(footer).struct;
  } catch (error) {
    throw new GeoParquetReadError(`${where}: cannot read the Parquet footer: ${(error as Error).message}`);
  }
  const kv = (listField(metadata, FILE.keyValue) as ThriftStruct[]).find((e) => text(field(e, 1)) === "geo");
  const geo = parseGeoMetadata(kv ? text(field(kv, 2)) : undefined, where);
  const groups = listField(metadata, FILE.rowGroups) as ThriftStruct[];
  const spans = groups.map(groupSpan);
  spans.forEach(([start, end], i) => {
    if (!(start >= 4 && end <= footerStart && start <= end))
      throw new GeoParquetReadError(`${where}: row group ${i} claims bytes ${start}–${end}, outside the file's data`);
  });
  // Groups in file order can be hashed as they are read; any other layout is hashed by a pass of its own.
  const ordered = spans.every(([start], i) => i === 0 || start >= (spans[i - 1] as [number, number])[1]);
  const reader = new OrderedReader(source, options.chunkBytes);
  let digest: Promise<string> | undefined;
  const rows = n(field(metadata, FILE.numRows));

  async function* rowGroups(columns?: string[]): AsyncGenerator<RangedGroup> {
    if (groups.length === 0) {
      // No row group (an empty table): the footer alone still gives the schema.
      const file = joinFooter({ body: [new TextEncoder().encode("PAR1")], metadata });
      const { table } = await readGeoParquet(file, where, columns ? { columns } : {});
      yield { index: 0, firstRow: 0, rows: 0, table };
      return;
    }
    let firstRow = 0;
    for (const [index, group] of groups.entries()) {
      const [start, end] = spans[index] as [number, number];
      const bytes = ordered ? await reader.take(start, end - start) : await source.read(start, end - start);
      const part = structuredClone(group);
      for (const chunk of listField(part, RG.columns) as ThriftStruct[]) {
        shiftChunk(chunk, 4 - start);
        chunk.fields = chunk.fields.filter((f) => f.id < 4 || f.id > 7); // page indexes are not carried
      }
      const one = { ...metadata, fields: metadata.fields.map((f) => ({ ...f })) };
      setField(one, FILE.numRows, T.I64, BigInt(n(field(part, RG.numRows))));
      (one.fields.find((f) => f.id === FILE.rowGroups) as { value: ThriftList }).value = {
        ...(field(metadata, FILE.rowGroups) as ThriftList),
        items: [part],
      };
      const file = joinFooter({ body: [new TextEncoder().encode("PAR1"), bytes], metadata: one });
      const groupRows = n(field(part, RG.numRows));
      const { table } = await readGeoParquet(file, `${where} (row group ${index})`, columns ? { columns } : {});
      yield { index, firstRow, rows: groupRows, table };
      firstRow += groupRows;
    }
  }

  return {
    geo,
    columns: topLevelColumns(metadata),
    rows,
    groups: groups.length,
    rowGroups,
    sha256: () => (digest ??= ordered ? reader.finish() : new OrderedReader(source, options.chunkBytes).finish()),
  };
}
