/**
 * FlatGeobuf features read in place (fgb-raw.ts): a tampered offset or length inside a feature is refused as that
 * feature's corruption, never read from the next feature's bytes; text that is not valid UTF-8 is
 * refused naming the feature and column (never U+FFFD), and valid text is copied as it is.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as flatbuffers from "flatbuffers";
import { fromByteBuffer } from "flatgeobuf/lib/mjs/header-meta.js";
import { calcTreeSize } from "flatgeobuf/lib/mjs/packedrtree.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FgbFeature, GEOMETRY_FIELD } from "../../../src/sources/flatgeobuf/fgb-raw.js";
import { fgbWkb } from "../../../src/sources/flatgeobuf/fgb-wkb.js";
import { flatgeobufFormat } from "../../../src/sources/flatgeobuf/flatgeobuf.js";

let dir: string;
let file: string;

/** Where each feature's bytes (after the size prefix) start, and how long they are. */
function features(bytes: Buffer): [number, number][] {
  const size = bytes.readUInt32LE(8);
  const header = fromByteBuffer(new flatbuffers.ByteBuffer(new Uint8Array(bytes.subarray(8, 12 + size))));
  let at = 12 + size + (header.indexNodeSize > 0 ? calcTreeSize(header.featuresCount, header.indexNodeSize) : 0);
  const out: [number, number][] = [];
  while (at < bytes.length) {
    const n = bytes.readUInt32LE(at);
    out.push([at + 4, n]);
    at += 4 + n;
  }
  return out;
}

async function read(path: string): Promise<{ names: string[]; rows: number }> {
  const opened = await flatgeobufFormat.open({ path, name: "tampered.fgb", sidecar: async () => undefined }, {});
  const names: string[] = [];
  let rows = 0;
  try {
    for await (const batch of opened.batches()) {
      rows += batch.numRows;
      for (const v of batch.getChild("name") ?? []) names.push(v as string);
    }
  } finally {
    await opened.close();
  }
  return { names, rows };
}

describe("FlatGeobuf features read in place", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-fgb-raw-"));
    const features = [0, 1, 2].map((i) => ({
      type: "Feature",
      properties: { name: `café ${i}`, n: i },
      geometry: {
        type: "Polygon",
        // Two rings, so GDAL writes the ring ends (one ring has none).
        coordinates: [
          [
            [i, 0],
            [i + 1, 0],
            [i + 1, 1],
            [i, 1],
            [i, 0],
          ],
          [
            [i + 0.2, 0.2],
            [i + 0.2, 0.4],
            [i + 0.4, 0.2],
            [i + 0.2, 0.2],
          ],
        ],
      },
    }));
    writeFileSync(join(dir, "in.geojson"), JSON.stringify({ type: "FeatureCollection", features }));
    file = join(dir, "ok.fgb");
    execFileSync("ogr2ogr", ["-f", "FlatGeobuf", "-lco", "SPATIAL_INDEX=NO", file, join(dir, "in.geojson")]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a vector length or ring end that runs past its feature, naming the feature", async () => {
    const bytes = readFileSync(file);
    const [[start, size]] = features(bytes) as [[number, number]];
    const f = new FgbFeature().at(bytes.subarray(start, start + size));
    const g = f.geometry();
    expect(fgbWkb(f, g, 3)?.length).toBe(9 + 2 * 4 + 9 * 16);
    const [xy] = f.vector(g, GEOMETRY_FIELD.xy, 8);
    const [ends] = f.vector(g, GEOMETRY_FIELD.ends, 4);
    // Positions are within the file buffer's ArrayBuffer. The xy vector's length doubled: its points would run into the next feature.
    const longer = Buffer.from(bytes);
    longer.writeUInt32LE(36, xy - 4 - bytes.byteOffset);
    expect(() => fgbWkb(new FgbFeature().at(longer.subarray(start, start + size)), g, 3)).toThrow(RangeError);
    writeFileSync(join(dir, "long.fgb"), longer);
    await expect(read(join(dir, "long.fgb"))).rejects.toThrow(
      /tampered\.fgb cannot be read as FlatGeobuf after 0 features: an offset points outside the feature/,
    );
    // The hole ends after the last point.
    const ring = Buffer.from(bytes);
    ring.writeUInt32LE(10, ends + 4 - bytes.byteOffset);
    writeFileSync(join(dir, "ring.fgb"), ring);
    await expect(read(join(dir, "ring.fgb"))).rejects.toThrow(/after 0 features: a ring or part ends outside/);
    // The untouched file reads whole.
    expect(await read(file)).toEqual({ names: ["café 0", "café 1", "café 2"], rows: 3 });
  });

  it("copies valid UTF-8 text as it is and refuses bytes that are not UTF-8, naming the feature and column", async () => {
    const good = await read(file);
    expect(good.names).toEqual(["café 0", "café 1", "café 2"]);
    const bytes = Buffer.from(readFileSync(file));
    const [, [start, size]] = features(bytes) as [unknown, [number, number]];
    const at = bytes.indexOf(Buffer.from("café 1"), start);
    expect(at).toBeGreaterThan(start);
    expect(at).toBeLessThan(start + size);
    bytes[at + 3] = 0xff; // "caf" then a byte no UTF-8 sequence starts with, where é's first byte was
    writeFileSync(join(dir, "bad-text.fgb"), bytes);
    const refused = await read(join(dir, "bad-text.fgb")).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(refused?.message).toContain(
      'tampered.fgb, feature 1, column "name": its text is not UTF-8 (caf\\xff\\xa9 1)',
    );
    expect(refused?.message).not.toContain("\uFFFD");
  });
});
