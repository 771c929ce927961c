/**
 * `ls`'s changed_at is when a partition's rows last changed: a rekey (same bytes) does not move it, and neither
 * does a version with new bytes whose changelog, against exactly the version before it, counts no change (a
 * footer or writer change). A changelog against another version, or none (no natural key), is a change.
 */
import { describe, expect, it } from "vitest";
import { bytesSince } from "../../src/manifest/bytes-since.js";
import type { Manifest, ManifestEntry } from "../../src/manifest/types.js";

const NONE = { added: 0, removed: 0, geometry_changed: 0, attributes_changed: 0, unchanged: 5 };

function version(sha: string, at: string, changes?: { against: string | null; counts: typeof NONE }): ManifestEntry {
  return {
    sha256: sha,
    promoted_at: at,
    ...(changes
      ? {
          changes: {
            changelog: "c",
            sha256: "s",
            bytes: 1,
            key: ["id"],
            against: changes.against ? { logical_date: "2026-03-01", sha256: changes.against } : null,
            counts: changes.counts,
          },
        }
      : {}),
  } as ManifestEntry;
}

const manifest = (current: ManifestEntry, ...history: ManifestEntry[]) => ({ current, history }) as unknown as Manifest;

describe("bytesSince: when the rows last changed", () => {
  it("a rekey keeps the earlier time", () => {
    expect(bytesSince(manifest(version("b1", "T3"), version("b1", "T2"), version("b0", "T1")))).toEqual({
      rekeyed: true,
      changedAt: "T2",
    });
  });

  it("new bytes whose changelog against the version before counts nothing keep the earlier time", () => {
    const v3 = version("b2", "T3", { against: "b1", counts: NONE });
    const v2 = version("b1", "T2", { against: "b0", counts: { ...NONE, added: 1 } });
    expect(bytesSince(manifest(v3, v2, version("b0", "T1")))?.changedAt).toBe("T2");
  });

  it("a changelog that counts a change, one against another version, or none at all is a change", () => {
    const changed = version("b2", "T3", { against: "b1", counts: { ...NONE, attributes_changed: 1 } });
    expect(bytesSince(manifest(changed, version("b1", "T2")))?.changedAt).toBe("T3");
    const elsewhere = version("b2", "T3", { against: "bX", counts: NONE });
    expect(bytesSince(manifest(elsewhere, version("b1", "T2")))?.changedAt).toBe("T3");
    expect(bytesSince(manifest(version("b2", "T3"), version("b1", "T2")))?.changedAt).toBe("T3");
  });
});
