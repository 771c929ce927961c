/**
 * The store-scheme registry: a new backend is one file plus one registration. Here the "file" is a toy scheme
 * backed by the memory store, registered by this test alone; once registered, store URLs, object URLs, run inputs
 * (identity and the changed-mid-run check) and `validate`'s input reader reach it with no other change.
 */
import { describe, expect, it } from "vitest";
import { readInput } from "../../src/cli/input.js";
import { resolveInput } from "../../src/inputs/resolve.js";
import { CountingStore } from "../../src/store/counting.js";
import { MemoryStore } from "../../src/store/memory.js";
import { isObjectUrl, openObject, openStore, registerStoreScheme, splitAfterRoot } from "../../src/store/open.js";
import { S3Store } from "../../src/store/s3.js";
import { hasMultipartUploads } from "../../src/store/types.js";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("store schemes", () => {
  it("a toy scheme needs one registration: store URLs, object URLs and inputs then reach it", async () => {
    expect(() => openStore("toy://box")).toThrow(/unsupported store URL scheme 'toy:\/\/'/);
    expect(isObjectUrl("toy://box/in.json")).toBe(false);
    registerStoreScheme({
      schemes: ["toy"],
      example: "toy://name",
      open: (url) => new MemoryStore(`toy:${url.slice("toy://".length)}`),
      split: splitAfterRoot("name"),
    });

    const store = openStore("toy://box");
    await store.put("in.json", bytes("[1,2,3]"));
    expect(isObjectUrl("toy://box/in.json")).toBe(true);
    const { store: holder, key, storeUrl } = openObject("toy://box/in.json");
    expect([storeUrl, key, new TextDecoder().decode((await holder.get(key)).body)]).toEqual([
      "toy://box",
      "in.json",
      "[1,2,3]",
    ]);
    expect(new TextDecoder().decode(await readInput("toy://box/in.json"))).toBe("[1,2,3]");

    // As a run's input: identified by the store's version token, read once into the run's copy, and a change
    // between identification and that read fails it.
    const input = await resolveInput("toy://box/in.json");
    expect(input.identity).toBe(`etag:${(await store.head("in.json")).version}`);
    expect(new TextDecoder().decode(await input.read())).toBe("[1,2,3]");
    const later = await resolveInput("toy://box/in.json");
    await store.put("in.json", bytes("[4]"));
    expect(new TextDecoder().decode(await input.read())).toBe("[1,2,3]");
    await expect(later.read()).rejects.toThrow(/changed during the run/);

    // Unknown schemes name every registered one, the toy among them.
    expect(() => openStore("gs://bucket/p")).toThrow(
      /use a directory, file:\/\/\/path, memory:\/\/name, s3:\/\/bucket\/prefix, az:\/\/container\/prefix, toy:\/\/name/,
    );
  });

  it("object URLs must name a key; a scheme without objects says so", () => {
    expect(() => openObject("s3://bucket")).toThrow(/expected s3:\/\/bucket\/key/);
    expect(() => openObject("s3://bucket/")).toThrow(/expected s3:\/\/bucket\/key/);
    expect(() => openObject("file:///tmp/x")).toThrow(/file:\/\/ names stores, not objects/);
    const s3 = openObject("s3://bucket/a/b%20c.parquet?region=eu-west-1");
    expect([s3.storeUrl, s3.key]).toEqual(["s3://bucket?region=eu-west-1", "a/b c.parquet"]);
    expect((s3.store as S3Store).prefix).toBe("");
  });

  it("capabilities pass through wrappers: a counted S3 store can still clean up multipart uploads", () => {
    const s3 = new S3Store({ bucket: "b", endpoint: "http://127.0.0.1:9", region: "us-east-1" });
    expect(hasMultipartUploads(s3)).toBe(true);
    expect(hasMultipartUploads(new CountingStore(s3))).toBe(true);
    expect(hasMultipartUploads(new CountingStore(new MemoryStore("caps")))).toBe(false);
  });
});
