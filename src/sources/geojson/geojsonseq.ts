import { createInterface } from "node:readline";
import { BatchBuilder } from "../batch-builder.js";
import { SourceError } from "../errors.js";
import { MAX_JSON_DEPTH, mayHoldLongIntegers, nestedDeeperThan, parseJsonExact } from "./exact-json.js";
import { featureRow } from "./geojson-geometry.js";
import type { SourceFormat } from "../source-format.js";
import { textOf } from "../text/utf8-text.js";

/** GeoJSON text sequences (RFC 8142, or newline-delimited): one feature per line, read line by line. */
export const geojsonSeqFormat: SourceFormat = {
  name: "geojsonseq",
  async open(file, options) {
    return {
      crs: undefined,
      crsFrom: `GeoJSON sequences carry no CRS`,
      impliedCrs: "OGC:CRS84",
      async *batches() {
        const builder = new BatchBuilder([], options.columns, file.name, undefined, true);
        const lines = createInterface({ input: textOf(file.path, file.name, options.encoding), crlfDelay: Infinity });
        let line = 0;
        let features = 0;
        for await (const raw of lines) {
          line++;
          const text = raw.replace(/^\x1e/, "").trim();
          if (!text) continue;
          let value: { type?: unknown; geometry?: unknown; properties?: unknown };
          if (nestedDeeperThan(text, MAX_JSON_DEPTH))
            throw new SourceError(
              `${file.name}, line ${line}: JSON nested deeper than ${MAX_JSON_DEPTH} levels, which no feature needs; fix the file`,
            );
          try {
            value = (mayHoldLongIntegers(text) ? parseJsonExact(text) : JSON.parse(text)) as typeof value;
          } catch (error) {
            throw new SourceError(
              `${file.name}, line ${line}: not JSON (${(error as Error).message}); check the file and "format"`,
            );
          }
          if (value?.type !== "Feature")
            throw new SourceError(
              `${file.name}, line ${line}: not a GeoJSON Feature (type ${JSON.stringify(value?.type)}); check "format"`,
            );
          const at = line;
          const f = featureRow(value, () => `${file.name}, line ${at}`);
          const position = features++;
          builder.addObject(f.geometry, f.properties, f.fid ?? position);
          if (builder.full) yield builder.flush() as never;
        }
        builder.checkSelected();
        const last = builder.flush();
        if (last) yield last;
      },
      async close() {},
    };
  },
};
