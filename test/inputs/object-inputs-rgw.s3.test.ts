/** s3:// object inputs against RGW, through the scheme registry: ETag identity, re-checked on read. */
import { describe, expect, it } from "vitest";
import { resolveInput } from "../../src/inputs/resolve.js";
import { readInput } from "../../src/cli/input.js";
import { S3Store } from "../../src/store/s3.js";
import { rgwHarness } from "../store/harness/rgw.js";

describe("s3:// inputs (RGW)", () => {
  it("are identified by their ETag, read back under that identity, and fail when replaced mid-run", async () => {
    const fx = await rgwHarness.open();
    try {
      const store = fx.store as S3Store;
      const { version } = await store.put("inputs/points.json", new TextEncoder().encode("[[1,2,3]]"));
      const uri = `s3://${store.bucket}/${store.prefix}/inputs/points.json`;
      const input = await resolveInput(uri);
      expect(input.identity).toBe(`etag:${version}`);
      expect(new TextDecoder().decode(await input.read())).toBe("[[1,2,3]]");
      expect(new TextDecoder().decode(await readInput(uri))).toBe("[[1,2,3]]");
      // Read once into the run's verified copy: a later replacement does not reach this run.
      await store.put("inputs/points.json", new TextEncoder().encode("[[4,5,6]]"));
      expect(new TextDecoder().decode(await input.read())).toBe("[[1,2,3]]");
      // Replaced between identification and the first read: the read fails instead of mixing versions.
      const later = await resolveInput(uri);
      await store.put("inputs/points.json", new TextEncoder().encode("[[7,8,9]]"));
      await expect(later.read()).rejects.toThrow(new RegExp(`input ${uri} changed during the run \\(etag:`));
      expect(later.location).toBe(store.locate("inputs/points.json"));
      await expect(resolveInput(`s3://${store.bucket}/${store.prefix}/inputs/missing.json`)).rejects.toThrow(
        /not found|NotFound|missing/i,
      );
    } finally {
      await fx.dispose();
    }
  });
});
