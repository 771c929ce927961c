import { createReadStream } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { BATCH_ROWS, BatchBuilder } from "../batch-builder.js";
import { ByteReader } from "../byte-reader.js";
import { dbfFields, dbfPrelude, dbfValue, LDID_ENCODINGS } from "./dbf.js";
import { SourceError } from "../errors.js";
import { layerType, shpGeometry, shpPointWkb } from "./shp-geometry.js";
import type { OpenedSource, ReadOptions, SourceFile, SourceFormat } from "../source-format.js";
import { fieldText, NotUtf8Text, unsaidText } from "../text/text-decode.js";
import { shownBytes } from "../text/utf8-text.js";
import { openZip } from "./zip.js";
import type { ZipArchive } from "./zip.js";

/** The parts of one Shapefile, however they arrive: streams for .shp and .dbf, text for .prj and .cpg. */
interface Parts {
  name: string;
  shp(): Promise<AsyncIterable<Uint8Array>>;
  dbf(): Promise<AsyncIterable<Uint8Array>>;
  prj?: string;
  cpg?: string;
  close(): void;
}

/**
 * Shapefiles, bare (a .shp with its .dbf, .prj and .cpg beside it) or zipped (read in place, never unpacked):
 * the .shp and .dbf streamed side by side, record by record. The CRS is the .prj's; the text encoding the
 * source's "encoding", else the .cpg, else the DBF's language driver byte, else UTF-8 where the bytes are (GDAL
 * passes them through) and ISO-8859-1 where they are not.
 */
export const shapefileFormat: SourceFormat = {
  name: "shapefile",
  async open(file, options) {
    const head = Buffer.alloc(4);
    const fh = await open(file.path, "r");
    await fh.read(head, 0, 4, 0).finally(() => fh.close());
    const parts = head.readUInt32BE(0) === 0x504b0304 ? await zipped(file, options) : await bare(file);
    return read(parts, options);
  },
};

async function bare(file: SourceFile): Promise<Parts> {
  const dbf = await file.sidecar(".dbf");
  if (!dbf)
    throw new SourceError(
      `${file.name}: a Shapefile needs its .dbf beside it; zip the parts, or point "url" at the .zip`,
    );
  const prj = await file.sidecar(".prj");
  const cpg = await file.sidecar(".cpg");
  return {
    name: file.name,
    shp: async () => createReadStream(file.path),
    dbf: async () => createReadStream(dbf),
    ...(prj ? { prj: await readFile(prj, "latin1") } : {}),
    ...(cpg ? { cpg: await readFile(cpg, "latin1") } : {}),
    close: () => undefined,
  };
}

async function zipped(file: SourceFile, options: ReadOptions): Promise<Parts> {
  const zip = await openZip(file.path, file.name);
  try {
    const visible = zip.entries.filter((e) => !/(^|\/)(__MACOSX|\.)/.test(e.fileName) && !e.fileName.endsWith("/"));
    const stem = (name: string) => name.replace(/\.[^./]*$/, "");
    const base = (name: string) => stem(name).split("/").pop() as string;
    const shps = visible.filter((e) => /\.shp$/i.test(e.fileName));
    const chosen = options.layer === undefined ? shps : shps.filter((e) => base(e.fileName) === options.layer);
    if (chosen.length !== 1) {
      const names = shps.map((e) => base(e.fileName));
      throw new SourceError(
        shps.length === 0
          ? `${file.name} holds no .shp (it holds ${
              visible
                .map((e) => e.fileName)
                .slice(0, 10)
                .join(", ") || "nothing"
            }); check "url" and "format"`
          : options.layer === undefined
            ? `${file.name} holds ${shps.length} Shapefiles (${names.join(", ")}); name one with "layer" in the source`
            : `${file.name} holds no Shapefile named ${JSON.stringify(options.layer)} (it holds ${names.join(", ")}); fix "layer" in the source`,
      );
    }
    const shp = chosen[0] as (typeof shps)[number];
    const sidecar = (ext: string) =>
      visible.find((e) => stem(e.fileName) === stem(shp.fileName) && e.fileName.toLowerCase().endsWith(ext));
    const dbf = sidecar(".dbf");
    if (!dbf) throw new SourceError(`${file.name}: ${shp.fileName} has no .dbf beside it in the archive`);
    const prj = sidecar(".prj");
    const cpg = sidecar(".cpg");
    const text = async (e: typeof prj) => (e ? Buffer.from(await zip.bytes(e)).toString("latin1") : undefined);
    const prjText = await text(prj);
    const cpgText = await text(cpg);
    return {
      name: `${file.name}!${shp.fileName}`,
      shp: () => zip.stream(shp),
      dbf: () => zip.stream(dbf),
      ...(prjText === undefined ? {} : { prj: prjText }),
      ...(cpgText === undefined ? {} : { cpg: cpgText }),
      close: () => zip.close(),
    };
  } catch (error) {
    zip.close();
    throw error;
  }
}

function encodingOf(parts: Parts, options: ReadOptions, ldid: number): string | undefined {
  if (options.encoding) return options.encoding;
  const cpg = parts.cpg?.trim();
  if (cpg) return cpg;
  return LDID_ENCODINGS[ldid];
}

async function read(parts: Parts, options: ReadOptions): Promise<OpenedSource> {
  const where = parts.name;
  const shp = new ByteReader(await parts.shp());
  const dbf = new ByteReader(await parts.dbf());
  const close = async () => {
    await shp.close().catch(() => undefined);
    await dbf.close().catch(() => undefined);
    parts.close();
  };
  try {
    const header = await shp.read(100);
    const hv = new DataView(header.buffer, header.byteOffset, header.byteLength);
    if (header.length < 100 || hv.getInt32(0, false) !== 9994)
      throw new SourceError(
        `${where} is not a Shapefile (.shp without its 9994 file code); check the file and "format"`,
      );
    const shapeType = hv.getInt32(32, true);
    if (shapeType === 31)
      throw new SourceError(
        `${where} is a MultiPatch Shapefile (3D surfaces), which georefresh does not read; convert it first, e.g. ogr2ogr -nlt MULTIPOLYGONZ out.gpkg ${where.split("/").pop() ?? where}`,
      );
    const prelude = await dbf.read(32);
    if (prelude.length < 32) throw new SourceError(`${where}: its .dbf is truncated`);
    const p = dbfPrelude(prelude);
    if (p.headerBytes < 33)
      throw new SourceError(
        `${where}: its .dbf header says it is ${p.headerBytes} bytes long, shorter than a dBASE header can be (33); the .dbf is damaged: write it again (e.g. ogr2ogr) or leave the file out`,
      );
    const rest = await dbf.read(p.headerBytes - 32);
    if (rest.length < p.headerBytes - 32) throw new SourceError(`${where}: its .dbf is truncated in its header`);
    const full = new Uint8Array(p.headerBytes);
    full.set(prelude);
    full.set(rest, 32);
    const encoding = encodingOf(parts, options, p.ldid);
    const text = encoding === undefined ? unsaidText : fieldText(encoding, where);
    const said = (bytes: Uint8Array) =>
      `is not ${encoding} (${shownBytes(bytes)}), though ${options.encoding ? `the source's "encoding"` : parts.cpg?.trim() ? "its .cpg" : "its .dbf's language driver byte"} says so: set "encoding" on the source to the one it is in (e.g. "windows-1252", "latin1")`;
    let fields: ReturnType<typeof dbfFields>;
    try {
      fields = dbfFields(full, text);
    } catch (error) {
      if (error instanceof NotUtf8Text)
        throw new SourceError(`${where}: a field name in its .dbf ${said(error.bytes)}`);
      throw error;
    }
    const past = fields.find((f) => f.offset + f.width > p.recordBytes);
    if (past)
      throw new SourceError(
        `${where}: its .dbf says a record is ${p.recordBytes} bytes, but field ${JSON.stringify(past.name)} ends at byte ${past.offset + past.width}; the .dbf is damaged (its attributes cannot be read): write it again (e.g. ogr2ogr) or leave the file out`,
      );
    const builder = new BatchBuilder(fields, options.columns, where, layerType(shapeType));
    const points = shapeType === 1 || shapeType === 11 || shapeType === 21;
    // A batch's point WKB, back to back; the builder copies them out when it flushes, so the slab is reused.
    const slab = new Uint8Array(points ? BATCH_ROWS * 29 : 0);
    let slabAt = 0;
    // Read as Latin-1, a UTF-8 byte-order mark is these three characters.
    const prj = parts.prj?.replace(/^(\uFEFF|\u00EF\u00BB\u00BF)/, "").trim();
    return {
      crs: prj ? prj : undefined,
      crsFrom: prj ? "its .prj" : "it has no .prj",
      async *batches() {
        let record = 1;
        for (; ; record++) {
          const rh = await shp.read(8);
          if (rh.length === 0) break;
          if (record > p.records)
            throw new SourceError(
              `${where}: the .dbf says ${p.records} records but the .shp has more (record ${record}); the Shapefile is damaged`,
            );
          if (rh.length < 8) throw new SourceError(`${where}: the .shp is truncated at record ${record}`);
          const length = 2 * new DataView(rh.buffer, rh.byteOffset, 8).getInt32(4, false);
          const content = await shp.read(length);
          if (content.length < length || length < 4)
            throw new SourceError(`${where}: the .shp is truncated at record ${record}`);
          const bytes = await dbf.read(p.recordBytes);
          const row = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          if (row.length < p.recordBytes || row[0] === 0x1a)
            throw new SourceError(
              `${where}: the .dbf has fewer records than the .shp (${record - 1}); the Shapefile is damaged`,
            );
          if (row[0] === 0x2a) continue; // deleted in the .dbf: GDAL skips it too
          let geometry;
          try {
            geometry = points ? shpPointWkb(content, slab, slabAt) : shpGeometry(content);
            if (geometry instanceof Uint8Array) slabAt += geometry.length;
          } catch (error) {
            throw new SourceError(`${where}, record ${record}: ${(error as Error).message}; the Shapefile is damaged`);
          }
          builder.add(
            geometry,
            (i) => {
              const field = fields[i] as (typeof fields)[number];
              try {
                return dbfValue(row, field, text);
              } catch (error) {
                if (!(error instanceof NotUtf8Text)) throw error;
                throw new SourceError(
                  `${where}, feature ${record - 1}, field ${JSON.stringify(field.name)}: its text ${said(error.bytes)}`,
                );
              }
            },
            record - 1,
          );
          if (builder.full) {
            yield builder.flush() as never;
            slabAt = 0;
          }
        }
        if (record - 1 < p.records)
          throw new SourceError(
            `${where}: the .shp has ${record - 1} records but the .dbf says ${p.records}; the Shapefile is damaged`,
          );
        const last = builder.flush();
        if (last) yield last;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
