/**
 * zstd-wasm decompresses a page only when its frame declares exactly the size the page header says: a frame that
 * declares more (a bomb's way to make a reader allocate) or no size at all is left to the caller, never allocated.
 */
import { compress } from "@bokuweb/zstd-wasm";
import { compressors } from "hyparquet-compressors";
import { beforeAll, describe, expect, it } from "vitest";
import { zstdDecompress, zstdReady } from "../../src/geoparquet/zstd-pages.js";

describe("zstd page bodies through zstd-wasm", () => {
  beforeAll(() => zstdReady());
  const input = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251);

  it("gives the bytes the JavaScript decoder gives", () => {
    const frame = compress(input, 1);
    const out = zstdDecompress(frame, input.length);
    expect(out && Buffer.from(out).equals(Buffer.from(input))).toBe(true);
    const reference = (compressors.ZSTD as (i: Uint8Array, n: number) => Uint8Array)(frame, input.length);
    expect(Buffer.from(reference).equals(Buffer.from(out as Uint8Array))).toBe(true);
  });

  it("declines a frame whose declared size is not the page's, or that is not zstd", () => {
    const frame = compress(input, 1);
    expect(zstdDecompress(frame, input.length - 1)).toBeUndefined();
    expect(zstdDecompress(frame, input.length + 1)).toBeUndefined();
    expect(zstdDecompress(new Uint8Array([1, 2, 3, 4, 5, 6, 7]), 7)).toBeUndefined();
  });

  it("declines a frame that declares 4 GiB, however the page header agrees, without allocating it", () => {
    // A single-segment frame header with an 8-byte content size of 2^32 (descriptor 0xE0), then garbage.
    const bomb = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 1, 0, 0, 0, 9, 9, 9]);
    expect(zstdDecompress(bomb, 100)).toBeUndefined();
    // Even when the caller's length agrees, a corrupt body is refused, not returned short.
    expect(zstdDecompress(bomb, 2 ** 32)).toBeUndefined();
  });
});
