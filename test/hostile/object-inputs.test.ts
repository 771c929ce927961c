/**
 * Issue 22, item 2 for object-store inputs: read in 8 MiB ranges into the run's local copy (byte-identical, an
 * empty object too), refused by its size when over GEOREFRESH_MAX_INPUT_BYTES, and located by where it is.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { resolveInput } from "../../src/inputs/resolve.js";
import { MemoryStore } from "../../src/store/memory.js";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("object-store inputs", () => {
  const cap = process.env.GEOREFRESH_MAX_INPUT_BYTES;
  afterEach(() => {
    if (cap === undefined) delete process.env.GEOREFRESH_MAX_INPUT_BYTES;
    else process.env.GEOREFRESH_MAX_INPUT_BYTES = cap;
  });

  it("an object of several ranges and an empty one arrive whole, once, at their location", async () => {
    const store = new MemoryStore("object-inputs");
    const big = Uint8Array.from({ length: 20 * 2 ** 20 + 123 }, (_, i) => (i * 7) & 0xff);
    await store.put("in/big.bin", big);
    await store.put("in/empty.bin", new Uint8Array());
    const input = await resolveInput("memory://object-inputs/in/big.bin");
    expect(input.location).toBe("memory://object-inputs/in/big.bin");
    expect(sha(await input.read())).toBe(sha(big));
    const path = await input.path();
    expect(await input.path()).toBe(path); // one copy per run
    expect((await (await resolveInput("memory://object-inputs/in/empty.bin")).read()).byteLength).toBe(0);
  });

  it("an object over the cap is refused by its size before a byte is read", async () => {
    const store = new MemoryStore("object-inputs-over");
    await store.put("in/over.bin", new Uint8Array(200_000));
    process.env.GEOREFRESH_MAX_INPUT_BYTES = "65536";
    await expect(resolveInput("memory://object-inputs-over/in/over.bin")).rejects.toThrow(
      /input memory:\/\/object-inputs-over\/in\/over\.bin is larger than the input cap of 64 KiB \(65536 bytes; the object is 200000 bytes\).*GEOREFRESH_MAX_INPUT_BYTES/,
    );
  });
});
