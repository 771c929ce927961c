/**
 * Footer key-value metadata beside "geo" (a drop record, say) is written in one order in every process: by key,
 * the Arrow schema last. The encoder takes the pairs as a hash map whose order is per process, so this is
 * checked across processes, as two runs of a backfill are.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const WRITER = `
import { createHash } from "node:crypto";
import { Binary, Table, vectorFromArray } from "apache-arrow";
import { crsFromCode } from ${JSON.stringify(fileURLToPath(new URL("../../src/geo/crs/crs.ts", import.meta.url)))};
import { encodeWkbColumn } from ${JSON.stringify(fileURLToPath(new URL("../../src/geo/wkb.ts", import.meta.url)))};
import { writeGeoParquet } from ${JSON.stringify(fileURLToPath(new URL("../../src/geoparquet/write.ts", import.meta.url)))};
import { readGeoParquet } from ${JSON.stringify(fileURLToPath(new URL("../../src/geoparquet/read.ts", import.meta.url)))};
const wkb = encodeWkbColumn([{ type: "Point", coordinates: [1, 2] }, { type: "Point", coordinates: [3, 4] }]);
const { makeData } = await import("apache-arrow");
const geometry = (await import("apache-arrow")).makeVector(makeData({ type: new Binary(), length: 2, valueOffsets: wkb.offsets, data: wkb.data }));
const table = new Table({ id: vectorFromArray(["a", "b"]), geometry });
const keyValue = { "georefresh:dropped": '{"rows":1,"why":["x"]}', "zz:later": "1", "aa:first": "2", "m:middle": "3" };
const { bytes } = await writeGeoParquet(table, { crs: crsFromCode("OGC:CRS84"), keyValue });
const { footer } = await readGeoParquet(bytes, "t");
console.log(JSON.stringify({ sha: createHash("sha256").update(bytes).digest("hex"), keys: [...(footer?.keyValue?.keys() ?? [])] }));
`;

describe("footer key-value metadata", () => {
  it("is in one order in every process: by key, the Arrow schema last", () => {
    const runs = Array.from(
      { length: 6 },
      () =>
        JSON.parse(
          execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", WRITER], {
            encoding: "utf8",
          }),
        ) as {
          sha: string;
          keys: string[];
        },
    );
    expect(new Set(runs.map((r) => r.sha)).size).toBe(1);
    expect(runs[0]?.keys).toEqual(["aa:first", "geo", "georefresh:dropped", "m:middle", "zz:later", "ARROW:schema"]);
  }, 60_000);
});
