/**
 * Issue 22, items 7 and 8: a `stac` run overtaken by a newer one never puts back older Items, and a run killed
 * mid-write never leaves an Item linking to an Item not yet written (targets before links).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { writeStac } from "../../src/stac/publish.js";
import { FsStore } from "../../src/store/fs.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import { GatedStore } from "../helpers/gated-store.js";
import { promoteSquares } from "../helpers/squares.js";

describe("stac runs that overlap or die", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "georefresh-stac-races-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A store with 2 regions × 4 dates promoted from `n` points (a new n re-promotes every partition). */
  const promote = (store: ObjectStore, n: number) => promoteSquares(store, dir, n, "2026-01-04");

  /** Every stored Item's links that point at other Items, and whether each resolves to a stored object. */
  async function danglingLinks(store: ObjectStore): Promise<string[]> {
    const dangling: string[] = [];
    for await (const e of store.list("stac/s/")) {
      if (!e.key.endsWith(".json") || !/\/(items|versions)\//.test(e.key)) continue;
      const item = JSON.parse(new TextDecoder().decode((await store.get(e.key)).body)) as {
        links: { rel: string; href: string }[];
      };
      for (const l of item.links.filter((x) => x.rel === "predecessor-version" || x.rel === "latest-version")) {
        const target = posix.normalize(posix.join(posix.dirname(e.key), l.href));
        if (!(await store.exists(target))) dangling.push(`${e.key} → ${target}`);
      }
    }
    return dangling;
  }

  it("7: run A paused mid-run, a re-promotion, run B writes the catalog; A resumes and stops, leaving B's", async () => {
    const inner = new FsStore(join(dir, "overlap"));
    await promote(inner, 20);
    await writeStac(inner, "s", { cadence: "daily" });
    await promote(inner, 26);
    const gated = new GatedStore(inner);
    const gate = gated.hold((op, key) => op === "put" && key.startsWith("stac/s/"));
    const a = writeStac(gated, "s", { cadence: "daily" }).then(
      (summary) => ({ summary }),
      (error: Error) => ({ error }),
    );
    await gate.arrived; // A has read every manifest and is about to write
    await promote(inner, 33);
    const b = await writeStac(inner, "s", { cadence: "daily" });
    expect(b.written).toBeGreaterThan(0);
    gate.release();
    const outcome = await a;
    expect("error" in outcome ? String(outcome.error) : "A finished").toMatch(
      /StacError: another stac run of s wrote .* while this one ran: this run stopped rather than put back an older catalog/,
    );
    // B's catalog stands: every current Item names its partition's current artifact, and a fresh run has
    // nothing to write.
    for (const region of ["north", "south"])
      for (const date of ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]) {
        const m = await readManifest(inner, `manifests/s/region=${region}/date=${date}.json`);
        const item = new TextDecoder().decode((await inner.get(`stac/s/items/s-${region}-${date}.json`)).body);
        expect(item).toContain(m?.manifest.current?.artifact as string);
      }
    expect((await writeStac(inner, "s", { cadence: "daily" })).written).toBe(0);
  }, 120_000);

  it("8: killed at the first Item it writes, then at the first earlier version's: no link resolves to nothing", async () => {
    for (const at of ["stac/s/items/", "stac/s/versions/"]) {
      // Listings carry versions here (as on S3), so no HEAD reorders the writes: they start in the run's order.
      const inner = new MemoryStore(`stac-killed-${at.length}`);
      await promote(inner, 20);
      await writeStac(inner, "s", { cadence: "daily" });
      await promote(inner, 26);
      const gated = new GatedStore(inner);
      gated.kill((op, key) => op === "put" && key.startsWith(at));
      await expect(writeStac(gated, "s", { cadence: "daily" })).rejects.toThrow();
      expect(await danglingLinks(inner), at).toEqual([]);
      // The re-run completes the catalog, still with every link resolving.
      await writeStac(inner, "s", { cadence: "daily" });
      expect(await danglingLinks(inner)).toEqual([]);
    }
  }, 120_000);
});
