import { createHash } from "node:crypto";
import { Table } from "apache-arrow";
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

const FILE = { schema: 2, numRows: 3, rowGroups: 4, keyValue: 5, columnOrders: 7 } as const;
const ELEMENT = { name: 4, children: 5 } as const;
const RG = { columns: 1, numRows: 3 } as const;
const META = { totalCompressed: 7, dataPage: 9, dictionaryPage: 11 } as const;
const n = (v: unknown) => (typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : NaN);

/** Each top-level column of a footer's flattened schema: its name, its schema elements, and how many leaves. */
function topLevel(metadata: ThriftStruct): { name: string; elements: ThriftStruct[]; leaves: number }[] {
  const elements = listField(metadata, FILE.schema) as ThriftStruct[];
  const children = (e: ThriftStruct | undefined) => n(field(e as ThriftStruct, ELEMENT.children) ?? 0) || 0;
  const out: { name: string; elements: ThriftStruct[]; leaves: number }[] = [];
  let at = 1;
  // One subtree from `at`: its elements, and its leaves (the column chunks a row group has for it).
  const subtree = (): { elements: ThriftStruct[]; leaves: number } => {
    const e = elements[at++] as ThriftStruct;
    let rest = children(e);
    if (rest === 0) return { elements: [e], leaves: 1 };
    const acc = { elements: [e], leaves: 0 };
    while (rest-- > 0) {
      const sub = subtree();
      acc.elements.push(...sub.elements);
      acc.leaves += sub.leaves;
    }
    return acc;
  };
  for (let c = children(elements[0]); c > 0 && at < elements.length; c--) {
    const name = text(field(elements[at] as ThriftStruct, ELEMENT.name)) ?? "";
    out.push({ name, ...subtree() });
  }
  return out;
}

/** The bytes [start, end) one column chunk's pages span. */
function chunkSpan(chunk: ThriftStruct): [number, number] {
  const meta = structField(chunk, 3);
  if (!meta) return [Infinity, -Infinity];
  const dict = field(meta, META.dictionaryPage);
  const first = Math.min(n(field(meta, META.dataPage)), dict === undefined ? Infinity : n(dict));
  return [first, first + n(field(meta, META.totalCompressed))];
}

/** The bytes [start, end) a row group's column chunks span. */
function groupSpan(group: ThriftStruct): [number, number] {
  let start = Infinity;
  let end = -Infinity;
  for (const chunk of listField(group, RG.columns) as ThriftStruct[]) {
    const [from, to] = chunkSpan(chunk);
    start = Math.min(start, from);
    end = Math.max(end, to);
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
  /** The footer's key-value metadata under `name` (undefined when absent). */
  keyValue(name: string): string | undefined;
  /**
   * Decodes each row group in file order (only `columns`, when given; only the groups `wanted` accepts, the others
   * yielded with no table); `sha256` resolves once the last byte has been read.
   */
  rowGroups(columns?: string[], wanted?: (firstRow: number, rows: number) => boolean): AsyncGenerator<RangedGroup>;
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
  // A copy of its own: the decoded footer's byte fields are views of it, and a view of a whole-file buffer (a
  // small artifact is fetched whole) made each row group's structuredClone below copy the whole file.
  const footer = new Uint8Array(await source.read(footerStart, footerLength));
  let metadata: ThriftStruct;
  try {
    metadata = decodeStruct(footer).struct;
  } catch (error) {
    throw new GeoParquetReadError(`${where}: cannot read the Parquet footer: ${(error as Error).message}`);
  }
  const keyValue = (name: string) => {
    const kv = (listField(metadata, FILE.keyValue) as ThriftStruct[]).find((e) => text(field(e, 1)) === name);
    return kv ? text(field(kv, 2)) : undefined;
  };
  const geo = parseGeoMetadata(keyValue("geo"), where);
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
  const tops = topLevel(metadata);

  /**
   * The footer and chunks of a projection: only the chosen top-level columns' schema elements and column chunks
   * (parquet-wasm's reader decodes every column whatever it is asked, so the file handed to it holds only these).
   */
  function projected(columns: string[] | undefined): { keep: (chunk: number) => boolean; schema?: ThriftStruct[] } {
    if (!columns) return { keep: () => true };
    const root = structuredClone((listField(metadata, FILE.schema) as ThriftStruct[])[0] as ThriftStruct);
    const chosen = tops.filter((t) => columns.includes(t.name));
    setField(root, ELEMENT.children, T.I32, chosen.length);
    const leaves = new Set<number>();
    let leaf = 0;
    for (const t of tops) {
      if (columns.includes(t.name)) for (let i = 0; i < t.leaves; i++) leaves.add(leaf + i);
      leaf += t.leaves;
    }
    return { keep: (chunk) => leaves.has(chunk), schema: [root, ...chosen.flatMap((t) => t.elements)] };
  }

  async function* rowGroups(
    columns?: string[],
    wanted?: (firstRow: number, rows: number) => boolean,
  ): AsyncGenerator<RangedGroup> {
    if (groups.length === 0) {
      // No row group (an empty table): the footer alone still gives the schema.
      const file = joinFooter({ body: [new TextEncoder().encode("PAR1")], metadata });
      const { table } = await readGeoParquet(file, where, columns ? { columns } : {});
      yield { index: 0, firstRow: 0, rows: 0, table };
      return;
    }
    let firstRow = 0;
    const projection = projected(columns);
    for (const [index, group] of groups.entries()) {
      const [start, end] = spans[index] as [number, number];
      const groupRows = n(field(group, RG.numRows));
      if (wanted && !wanted(firstRow, groupRows)) {
        yield { index, firstRow, rows: groupRows, table: new Table() };
        firstRow += groupRows;
        continue; // its bytes are still hashed, in order, when the next group or the digest reads past them
      }
      const bytes = ordered ? await reader.take(start, end - start) : await source.read(start, end - start);
      const part = structuredClone(group);
      // The chosen chunks, each moved to where it lands in the group's file of its own: after the magic, in order.
      const body: Uint8Array[] = [new TextEncoder().encode("PAR1")];
      let at = 4;
      const chunks = (listField(part, RG.columns) as ThriftStruct[]).filter((_, i) => projection.keep(i));
      for (const chunk of chunks) {
        chunk.fields = chunk.fields.filter((f) => f.id < 4 || f.id > 7); // page indexes are not carried
        const [from, to] = chunkSpan(chunk);
        shiftChunk(chunk, at - from);
        body.push(bytes.subarray(from - start, to - start));
        at += to - from;
      }
      (part.fields.find((f) => f.id === RG.columns) as { value: ThriftList }).value = {
        ...(field(part, RG.columns) as ThriftList),
        items: chunks,
      };
      const one = { ...metadata, fields: metadata.fields.map((f) => ({ ...f })) };
      setField(one, FILE.numRows, T.I64, BigInt(n(field(part, RG.numRows))));
      (one.fields.find((f) => f.id === FILE.rowGroups) as { value: ThriftList }).value = {
        ...(field(metadata, FILE.rowGroups) as ThriftList),
        items: [part],
      };
      if (projection.schema) {
        (one.fields.find((f) => f.id === FILE.schema) as { value: ThriftList }).value = {
          ...(field(metadata, FILE.schema) as ThriftList),
          items: projection.schema,
        };
        // parquet-rs's embedded Arrow schema names every column: a projection goes by the Parquet schema alone.
        const kv = one.fields.find((f) => f.id === FILE.keyValue) as { value: ThriftList } | undefined;
        if (kv)
          kv.value = {
            ...kv.value,
            items: (kv.value.items as ThriftStruct[]).filter((e) => text(field(e, 1)) !== "ARROW:schema"),
          };
        // One column order per leaf: the same leaves as the chunks.
        const orders = one.fields.find((f) => f.id === FILE.columnOrders) as { value: ThriftList } | undefined;
        if (orders) orders.value = { ...orders.value, items: orders.value.items.filter((_, i) => projection.keep(i)) };
      }
      const file = joinFooter({ body, metadata: one });
      const { table } = await readGeoParquet(file, `${where} (row group ${index})`);
      yield { index, firstRow, rows: groupRows, table };
      firstRow += groupRows;
    }
  }

  return {
    geo,
    columns: tops.map((t) => t.name),
    rows,
    groups: groups.length,
    keyValue,
    rowGroups,
    sha256: () => (digest ??= ordered ? reader.finish() : new OrderedReader(source, options.chunkBytes).finish()),
  };
}
