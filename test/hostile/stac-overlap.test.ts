/**
 * Issue 34 item 6: a `stac` run paused after it has read the manifests (SIGSTOP, a slow store), while another
 * process re-promotes every partition and catalogues it, then resumes. Before the fix the paused run listed the
 * catalog only then, conditioned its writes on the newer versions, and put its older Items back (6 of 12 behind
 * their manifests on the filesystem store, both runs exiting 0). Now it lists the catalog before the manifests, so
 * it stops (overtaken) or writes only what agrees; either way every current Item names its manifest's artifact.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { writeStac } from "../../src/stac/publish.js";
import type { ObjectStore } from "../../src/store/types.js";
import { GatedStore } from "../helpers/gated-store.js";
import { promoteSquares } from "../helpers/squares.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

const REGIONS = ["north", "south"];
const DATES = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05", "2026-01-06"];

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let dir: string;
  beforeAll(async () => {
    fx = await h.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-stac-overlap-"));
  });
  afterAll(async () => {
    await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const promote = async (store: ObjectStore, n: number) =>
    expect(await promoteSquares(store, dir, n, DATES[DATES.length - 1] as string)).toBe(12);

  /** Current Items that do not name their partition's current artifact. */
  async function behind(store: ObjectStore): Promise<string[]> {
    const out: string[] = [];
    for (const region of REGIONS)
      for (const date of DATES) {
        const m = await readManifest(store, `manifests/s/region=${region}/date=${date}.json`);
        const item = new TextDecoder().decode((await store.get(`stac/s/items/s-${region}-${date}.json`)).body);
        if (!item.includes(m?.manifest.current?.artifact as string)) out.push(`${region} ${date}`);
      }
    return out;
  }

  it("paused after reading the manifests, overtaken, resumed: no Item ends behind its manifest", async () => {
    const inner = fx.store;
    await promote(inner, 20);
    await writeStac(inner, "s", { cadence: "daily" });
    await promote(inner, 26);
    const gated = new GatedStore(inner);
    // A has read every manifest (the last of them) when it makes its next call under stac/.
    let readManifests = 0;
    const gate = gated.hold((op, key) => {
      if (op === "get" && key.startsWith("manifests/s/")) readManifests++;
      return readManifests >= REGIONS.length * DATES.length && key.startsWith("stac/s/");
    });
    const a = writeStac(gated, "s", { cadence: "daily" }).then(
      (summary) => ({ summary }),
      (error: Error) => ({ error }),
    );
    await gate.reachedBy(a);
    await promote(inner, 33);
    const b = await writeStac(inner, "s", { cadence: "daily" });
    expect(b.written).toBeGreaterThan(0);
    gate.release();
    const outcome = await a;
    if ("error" in outcome)
      expect(String(outcome.error)).toMatch(
        /StacError: another stac run of s wrote .* while this one ran: this run stopped rather than put back an older catalog/,
      );
    expect(await behind(inner)).toEqual([]);
    // And the catalog is complete: a fresh run has nothing to write.
    expect((await writeStac(inner, "s", { cadence: "daily" })).written).toBe(0);
  }, 180_000);
}

describeEachStore("stac runs that overlap", suite);
