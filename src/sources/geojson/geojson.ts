import { readFile } from "node:fs/promises";
import Chain from "stream-chain";
import StreamJson from "stream-json";
import Pick from "stream-json/filters/Pick.js";
import StreamValues from "stream-json/streamers/StreamValues.js";
import { BatchBuilder } from "../batch-builder.js";
import { SourceError } from "../errors.js";
import { exactNumber, MAX_JSON_DEPTH, mayHoldLongIntegers, parseJsonExact } from "./exact-json.js";
import { crsMember, featureRow } from "./geojson-geometry.js";
import type { OpenedSource, SourceFormat } from "../source-format.js";
import { decoderFor, encodingLabel } from "../text/text-decode.js";
import { checkedUtf8, textOf } from "../text/utf8-text.js";

const TOP = new Set(["type", "crs"]);
const GEOMETRY_TYPES = new Set([
  "Point",
  "MultiPoint",
  "LineString",
  "MultiLineString",
  "Polygon",
  "MultiPolygon",
  "GeometryCollection",
]);

/** A GeoJSON text that is one Feature or one Geometry, whole (the stream already refused nesting too deep). */
async function oneObject(
  file: { path: string; name: string },
  encoding: string | undefined,
): Promise<Record<string, unknown>> {
  const bytes = await readFile(file.path);
  const text =
    encoding !== undefined && encodingLabel(encoding) !== "utf-8"
      ? decoderFor(encoding, file.name).decode(bytes)
      : checkedUtf8(bytes, file.name);
  return (mayHoldLongIntegers(text) ? parseJsonExact(text) : JSON.parse(text)) as Record<string, unknown>;
}

/**
 * A GeoJSON FeatureCollection, parsed as a stream (stream-json): one feature in memory at a time, however large the
 * file. Columns appear as features name them; their types are the values' (docs/sources.md).
 */
export const geojsonFormat: SourceFormat = {
  name: "geojson",
  async open(file, options) {
    const opened: OpenedSource = {
      crs: undefined,
      crsFrom: `its "crs" member`,
      impliedCrs: "OGC:CRS84",
      async *batches() {
        const builder = new BatchBuilder([], options.columns, file.name, undefined, true);
        const pipeline = Chain.chain([
          textOf(file.path, file.name, options.encoding),
          StreamJson.parser(),
          depthLimit(file.name),
          Pick.pick({
            filter: (stack: readonly (string | number | null)[]) =>
              (stack.length === 1 && TOP.has(String(stack[0]))) || (stack.length === 2 && stack[0] === "features"),
          }),
          exactNumbers(StreamValues.streamValues()),
        ]);
        let row = 0;
        let type: unknown;
        try {
          for await (const { value } of pipeline as AsyncIterable<{ value: unknown }>) {
            if (typeof value === "string") {
              type = value;
              continue;
            }
            const v = value as { type?: unknown; geometry?: unknown; properties?: unknown };
            if (v.type !== "Feature") {
              opened.crs = crsMember(value, file.name);
              continue;
            }
            row++;
            const at = row;
            const f = featureRow(v, () => `${file.name}, feature ${at}`);
            builder.addObject(f.geometry, f.properties, f.fid ?? at - 1);
            if (builder.full) yield builder.flush() as never;
          }
        } catch (error) {
          if (error instanceof SourceError) throw error;
          throw new SourceError(
            `${file.name} is not valid JSON (after ${row} features): ${(error as Error).message}; check the file and "format"`,
          );
        }
        if (type !== "FeatureCollection" && row === 0 && (type === "Feature" || GEOMETRY_TYPES.has(type as string))) {
          // RFC 7946 lets a GeoJSON text be one Feature or one Geometry: OGR reads it as a layer of one feature.
          const whole = await oneObject(file, options.encoding);
          const f = featureRow(type === "Feature" ? whole : { geometry: whole }, () => `${file.name}, its ${type}`);
          builder.addObject(f.geometry, f.properties, f.fid ?? 0);
        } else if (type !== "FeatureCollection")
          throw new SourceError(
            `${file.name} is not a GeoJSON FeatureCollection (its "type" is ${JSON.stringify(type)}); check "format"`,
          );
        builder.checkSelected();
        const last = builder.flush();
        if (last) yield last;
      },
      async close() {},
    };
    return opened;
  },
};

interface Assembler {
  done: boolean;
  current: unknown;
  key: string | null;
  _saveValue?: (v: unknown) => void;
  stringValue?: (v: string) => void;
  numberValue?: (v: string) => void;
}

/**
 * The streamer's assembler, made faithful: an integer past 2^53 stays whole (exact-json.ts) instead of
 * parseFloat's rounding, and a key named "__proto__" is an own property, as JSON.parse makes it (plain
 * assignment would set the object's prototype and drop the property). stream-json 1.x has no option for either;
 * its Assembler's value savers are the one place both are seen.
 */
function exactNumbers<T>(streamer: T): T {
  const assembler = (streamer as { _assembler?: Assembler })._assembler;
  if (!assembler?._saveValue)
    throw new Error("stream-json's StreamValues has no _assembler: the pinned version changed");
  const a = assembler;
  const save = (value: unknown) => {
    if (a.done) a.current = value;
    else if (Array.isArray(a.current)) a.current.push(value);
    else {
      Object.defineProperty(a.current, a.key as string, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      a.key = null;
    }
  };
  a._saveValue = save;
  a.stringValue = save;
  a.numberValue = (text: string) => save(exactNumber(text));
  return streamer;
}

/** A step of the token stream that refuses nesting past MAX_JSON_DEPTH (a stack overflow later, else). */
function depthLimit(name: string): (token: { name: string }) => { name: string } {
  let depth = 0;
  return (token) => {
    if (token.name === "startObject" || token.name === "startArray") {
      if (++depth > MAX_JSON_DEPTH)
        throw new SourceError(
          `${name}: JSON nested deeper than ${MAX_JSON_DEPTH} levels, which no feature needs; fix the file`,
        );
    } else if (token.name === "endObject" || token.name === "endArray") depth--;
    return token;
  };
}
