import { open } from "node:fs/promises";
import { pipeline } from "node:stream";
import { parse } from "csv-parse";
import type { Geometry } from "../../geo/geometry.js";
import { BatchBuilder } from "../batch-builder.js";
import type { FileField } from "../batch-builder.js";
import { SourceError } from "../errors.js";
import type { ReadOptions, SourceFormat } from "../source-format.js";
import { decoderFor } from "../text/text-decode.js";
import { textOf } from "../text/utf8-text.js";
import { parseWkt, WktError } from "./wkt.js";

const WKT_NAMES = ["wkt", "geometry", "geom", "the_geom", "wkt_geom", "shape"];
const XY_NAMES: [string, string][] = [
  ["x", "y"],
  ["lon", "lat"],
  ["lng", "lat"],
  ["long", "lat"],
  ["longitude", "latitude"],
  ["easting", "northing"],
];

type GeometryColumns = { wkt: number } | { x: number; y: number; z?: number };

/**
 * CSV with a WKT column or x/y columns (found by the usual names, or named by the source's "geometry"). Values are
 * text unless "columns" gives a type, as GDAL reads CSV; a CSV carries no CRS, so the source declares one.
 */
export const csvFormat: SourceFormat = {
  name: "csv",
  async open(file, options) {
    return {
      crs: undefined,
      crsFrom: `a CSV file carries no CRS`,
      async *batches() {
        const encoding = options.encoding ?? "utf-8";
        const delimiter = /\.tsv$/i.test(file.name)
          ? "\t"
          : separatorOf(await firstLine(file.path, encoding, file.name));
        const rows = pipeline(
          textOf(file.path, file.name, options.encoding),
          // A blank line is no record, as OGR reads it.
          parse({ bom: true, delimiter, relax_column_count: false, skip_empty_lines: true, info: true }),
          () => undefined,
        ) as AsyncIterable<{ record: string[]; info: { lines: number } }>;
        let header: string[] | undefined;
        let geometry: GeometryColumns | undefined;
        let builder: BatchBuilder | undefined;
        let line = 1;
        let fid = 0;
        try {
          for await (const { record, info } of rows) {
            line = info.lines;
            if (!header) {
              // An empty name (GDAL's own AS_XY output ends its header in a comma) is field_<n>, as OGR names it.
              header = record.map((h, i) => h.trim() || `field_${i + 1}`);
              geometry = geometryColumns(header, options.geometry, file.name);
              const skip = new Set(Object.values(geometry));
              const fields: FileField[] = header.map((name) => ({ name }));
              builder = new BatchBuilder(
                fields.map((f, i) => (skip.has(i) ? { ...f, geometry: true } : f)),
                options.columns,
                file.name,
                "wkt" in geometry ? "GeometryCollection" : "Point",
              );
              continue;
            }
            const b = builder as BatchBuilder;
            fid++;
            b.add(
              rowGeometry(record, geometry as GeometryColumns, () => `${file.name}, line ${line}`, b),
              // A line break inside a quoted value is "\n", as OGR reads it, whatever the file's line ends are.
              (i) => record[i]?.replaceAll("\r\n", "\n"),
              fid, // OGR's CSV FIDs count records from 1
            );
            if (b.full) yield b.flush() as never;
          }
        } catch (error) {
          if (error instanceof SourceError) throw error;
          throw new SourceError(
            `${file.name} cannot be read as CSV near line ${line + 1}: ${(error as Error).message}`,
          );
        }
        if (!builder) throw new SourceError(`${file.name} is empty: a CSV source needs a header line`);
        const last = builder.flush();
        if (last) yield last;
      },
      async close() {},
    };
  },
};

/** The file's first line, decoded (enough of it to see its separators). */
async function firstLine(path: string, encoding: string, where: string): Promise<string> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = decoderFor(encoding, where).decode(head.subarray(0, bytesRead), { stream: true });
    return text.split(/\r?\n/, 1)[0] ?? "";
  } finally {
    await handle.close();
  }
}

/**
 * The separator as OGR's CSV driver detects it from the header: the first of `,` `;` tab outside quotes, `,`
 * when the line mixes them, a space when there is none of them but spaces.
 */
export function separatorOf(header: string): string {
  let quoted = false;
  let found = "";
  let spaces = 0;
  for (const c of header) {
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === "," || c === ";" || c === "\t") {
      if (!found) found = c;
      else if (found !== c) return ",";
    } else if (c === " ") spaces++;
  }
  return found || (spaces > 0 ? " " : ",");
}

function geometryColumns(header: string[], given: ReadOptions["geometry"], where: string): GeometryColumns {
  const find = (name: string) => header.findIndex((h) => h.toLowerCase() === name.toLowerCase());
  const need = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0)
      throw new SourceError(
        `${where} has no column ${JSON.stringify(name)} (it has ${header.map((h) => JSON.stringify(h)).join(", ")}); fix "geometry" in the source`,
      );
    return i;
  };
  if (typeof given === "string") return { wkt: need(given) };
  if (given) return { x: need(given.x), y: need(given.y), ...(given.z ? { z: need(given.z) } : {}) };
  for (const n of WKT_NAMES) if (find(n) >= 0) return { wkt: find(n) };
  for (const [x, y] of XY_NAMES) if (find(x) >= 0 && find(y) >= 0) return { x: find(x), y: find(y) };
  throw new SourceError(
    `${where}: no geometry column found (looked for a WKT column named ${WKT_NAMES.join("/")} or x/y columns such as lon/lat); name it with "geometry": "<wkt column>" or { "x": "…", "y": "…" } in the source`,
  );
}

/** WKT that holds a curve, which the parser makes straight segments (counted for the outcome line). */
const CURVE_WKT = /CIRCULARSTRING|COMPOUNDCURVE|CURVEPOLYGON|MULTICURVE|MULTISURFACE/i;

function rowGeometry(record: string[], g: GeometryColumns, where: () => string, b: BatchBuilder): Geometry | null {
  if ("wkt" in g) {
    const text = (record[g.wkt] ?? "").trim();
    if (!text) return null;
    if (CURVE_WKT.test(text)) b.linearized++;
    try {
      return parseWkt(text);
    } catch (error) {
      if (error instanceof WktError) throw new SourceError(`${where()}: ${error.message}`);
      throw error;
    }
  }
  const num = (i: number | undefined) => {
    const t = (record[i as number] ?? "").trim();
    if (t === "") return undefined;
    const n = Number(t);
    if (!Number.isFinite(n)) throw new SourceError(`${where()}: coordinate ${JSON.stringify(t)} is not a number`);
    return n;
  };
  const x = num(g.x);
  const y = num(g.y);
  if (x === undefined || y === undefined) return null;
  const z = g.z === undefined ? undefined : num(g.z);
  return { type: "Point", coordinates: z === undefined ? [x, y] : [x, y, z] };
}
