/**
 * The batch XXH64 (xxh64.wat) gives xxhash-wasm's XXH64 for every length around its stripe and tail boundaries,
 * any seed, ranges that start anywhere in their buffer, and batches that grow its memory; and the committed module
 * is what scripts/build-xxh64.ts assembles from the source.
 */
import { readFileSync } from "node:fs";
import xxhash from "xxhash-wasm";
import { describe, expect, it } from "vitest";
import { xxh64Module } from "../../scripts/build-xxh64.js";
import { CanonicalBytes, encoderFor } from "../../src/changes/canonical.js";
import { digestReady, RowDigester } from "../../src/changes/row-digest.js";
import { xxh64Batch } from "../../src/changes/xxh64/batch.js";
import { syntheticParcels } from "../../scripts/synthetic-parcels.js";

/** Deterministic bytes (a linear congruential generator). */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe("XXH64 in batches", () => {
  it("equals xxhash-wasm's h64 for lengths 0–200, any seed, ranges anywhere in the buffer", async () => {
    const { h64Raw } = await xxhash();
    const lengths = Array.from({ length: 201 }, (_, i) => i);
    const offsets = [7]; // the first range does not start at the buffer's start
    for (const n of lengths) offsets.push((offsets.at(-1) as number) + n);
    const data = bytes((offsets.at(-1) as number) + 5, 42);
    for (const seed of [0n, 1n, 0x61747472n, 0xffffffffffffffffn, 0x9e3779b185ebca87n]) {
      const out = new BigUint64Array(lengths.length + 3);
      xxh64Batch(data, offsets, lengths.length, seed, out, 3);
      expect(out.subarray(0, 3)).toEqual(new BigUint64Array(3)); // nothing before outAt is written
      lengths.forEach((_, i) => {
        const range = data.subarray(offsets[i] as number, offsets[i + 1] as number);
        expect(out[3 + i], `length ${i}, seed ${seed}`).toBe(h64Raw(range, seed));
      });
    }
  });

  it("grows its memory for a batch of 40 MB, and keeps giving the same hashes after", async () => {
    const { h64Raw } = await xxhash();
    const n = 100_000;
    const big = bytes(400 * n, 7);
    const offsets = Int32Array.from({ length: n + 1 }, (_, i) => 400 * i);
    const out = new BigUint64Array(n);
    xxh64Batch(big, offsets, n, 0x67656f6dn, out);
    for (const i of [0, 1, 4_999, n - 1])
      expect(out[i]).toBe(h64Raw(big.subarray(400 * i, 400 * (i + 1)), 0x67656f6dn));
    const small = new BigUint64Array(1);
    xxh64Batch(big, [0, 33], 1, 5n, small);
    expect(small[0]).toBe(h64Raw(big.subarray(0, 33), 5n));
  });

  it("is the module scripts/build-xxh64.ts assembles from xxh64.wat", async () => {
    const committed = readFileSync(new URL("../../src/changes/xxh64/xxh64-module.ts", import.meta.url), "utf8");
    expect(committed).toBe(await xxh64Module());
  });

  it("hashes each row's own bytes in a RowDigester: the digests of xxhash-wasm over each row, row by row", async () => {
    const { h64Raw } = await xxhash();
    await digestReady();
    const table = syntheticParcels(3_000, 1, { kind: "polygon", idPrefix: "é-" });
    for (const contentOnly of [false, true]) {
      const digester = new RowDigester({ key: ["parcel_id"], geometry: "geometry", skip: [], contentOnly }, 3_000);
      for (const [lo, hi] of [
        [0, 1],
        [1, 1_000],
        [1_000, 3_000],
      ] as const)
        digester.group(table.slice(lo, hi));
      const d = digester.finish();
      const names = ["value", "zoning"]; // the attributes, sorted: everything but the key and the geometry
      const seed = h64Raw(new TextEncoder().encode(JSON.stringify(names)), 0x6e616d65n) ^ 0x61747472n;
      const [key, attrs] = [
        [encoderFor(table.getChild("parcel_id") as never)],
        names.map((n) => encoderFor(table.getChild(n) as never)),
      ];
      const wkb = table.getChild("geometry") as unknown as { get(i: number): Uint8Array };
      const out = new CanonicalBytes();
      for (const i of [0, 1, 2, 999, 1_000, 1_001, 2_999]) {
        out.reset();
        for (const a of attrs) a(i, out);
        expect(d.attributes[i], `row ${i}`).toBe(h64Raw(out.bytes(), seed));
        expect(d.geometry[i], `row ${i}`).toBe(h64Raw(wkb.get(i), 0x67656f6dn));
        if (contentOnly) continue;
        out.reset();
        for (const k of key) k(i, out);
        expect(d.key[i], `row ${i}`).toBe(h64Raw(out.bytes(), 0x6b6579n));
      }
    }
  });
});
