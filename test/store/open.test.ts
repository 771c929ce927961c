import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { FsStore } from "../../src/store/fs.js";
import { MemoryStore } from "../../src/store/memory.js";
import { openStore } from "../../src/store/open.js";
import { S3Store } from "../../src/store/s3.js";

describe("openStore", () => {
  it("opens a plain path and a file:// URL as the same filesystem store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "georefresh-open-"));
    try {
      const a = openStore(dir);
      const b = openStore(pathToFileURL(dir).href);
      expect(a).toBeInstanceOf(FsStore);
      await a.put("x/y", new TextEncoder().encode("shared"));
      expect(new TextDecoder().decode((await b.get("x/y")).body)).toBe("shared");
      expect(b.locate("x/y")).toBe(join(dir, "x", "y"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("opens memory://name as one store per name", async () => {
    const a = openStore("memory://open-test");
    await a.put("k", new TextEncoder().encode("v"));
    expect(openStore("memory://open-test")).toBeInstanceOf(MemoryStore);
    expect((await openStore("memory://open-test").head("k")).size).toBe(1);
    await expect(openStore("memory://other-name").head("k")).rejects.toThrow(/not found/);
    MemoryStore.reset("open-test");
  });

  it("parses s3://bucket/prefix with endpoint, region and path style from the query", () => {
    const store = openStore(
      "s3://my-bucket/some/prefix?endpoint=http://127.0.0.1:7480&region=eu-west-1&path_style=true",
    ) as S3Store;
    expect(store).toBeInstanceOf(S3Store);
    expect(store.bucket).toBe("my-bucket");
    expect(store.prefix).toBe("some/prefix");
    expect(store.endpoint).toBe("http://127.0.0.1:7480");
    expect(store.url).toBe("s3://my-bucket/some/prefix");
    expect(store.locate("a/b.parquet")).toBe("s3://my-bucket/some/prefix/a/b.parquet");
  });

  it("refuses credentials in the URL, a missing bucket, a bad prefix and unknown schemes", () => {
    expect(() => openStore("s3://AKIA:secret@bucket/p")).toThrow(/credentials do not belong in a store URL/);
    expect(() => openStore("s3:///prefix")).toThrow(/names no bucket/);
    expect(() => openStore("s3://bucket/a/../b")).toThrow(/'\.\.' segment/);
    expect(() => openStore("gs://bucket/p")).toThrow(/unsupported store URL scheme 'gs:\/\/'/);
    expect(() => openStore("")).toThrow(/empty store URL/);
  });
});
