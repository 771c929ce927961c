/**
 * What the backend relies on Azurite (and Azure) to do, asked of the server itself through the SDK: one winner
 * among concurrent conditional writes, losers told 409 BlobAlreadyExists or 412 ConditionNotMet, and the same
 * conditions honoured by Put Block List.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { azureContainer } from "./harness/azurite.js";

const code = (e: unknown) => `${(e as { statusCode?: number }).statusCode} ${(e as { code?: string }).code}`;

describe("Azurite's conditional writes", () => {
  const blobs = azureContainer();
  const base = `t/${randomUUID()}`;

  it("20 rounds of 20 concurrent creates: one winner each, the losers 409 BlobAlreadyExists", async () => {
    for (let round = 0; round < 20; round++) {
      const blob = blobs.getBlockBlobClient(`${base}/create/${round}`);
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          blob.upload(`w${i}`, `w${i}`.length, { conditions: { ifNoneMatch: "*" } }).then(
            () => "won",
            (e: unknown) => code(e),
          ),
        ),
      );
      expect(outcomes.filter((o) => o === "won")).toHaveLength(1);
      expect(outcomes.filter((o) => o !== "won")).toEqual(Array(19).fill("409 BlobAlreadyExists"));
    }
  });

  it("20 rounds of 20 concurrent compare-and-swaps on one ETag: one winner each, the losers 412 ConditionNotMet", async () => {
    const blob = blobs.getBlockBlobClient(`${base}/cas`);
    let etag = (await blob.upload("0", 1)).etag as string;
    for (let round = 0; round < 20; round++) {
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          blob.upload(`${round}.${i}`, `${round}.${i}`.length, { conditions: { ifMatch: etag } }).then(
            (r) => r.etag as string,
            (e: unknown) => code(e),
          ),
        ),
      );
      const won = outcomes.filter((o) => !o.startsWith("412"));
      expect(won).toHaveLength(1);
      expect(outcomes.filter((o) => o.startsWith("412"))).toEqual(Array(19).fill("412 ConditionNotMet"));
      etag = won[0] as string;
    }
  });

  it("Put Block List honours If-Match and If-None-Match: a stale ETag 412, an existing blob 409", async () => {
    const blob = blobs.getBlockBlobClient(`${base}/blocks`);
    const id = (n: number) => Buffer.from(`b-${n}`).toString("base64");
    await blob.stageBlock(id(1), Buffer.from("one"), 3);
    const first = await blob.commitBlockList([id(1)], { conditions: { ifNoneMatch: "*" } });
    await blob.stageBlock(id(2), Buffer.from("two"), 3);
    const second = await blob.commitBlockList([id(2)], { conditions: { ifMatch: first.etag as string } });
    await blob.stageBlock(id(3), Buffer.from("three"), 5);
    const stale = await blob.commitBlockList([id(3)], { conditions: { ifMatch: first.etag as string } }).catch(code);
    const exists = await blob.commitBlockList([id(3)], { conditions: { ifNoneMatch: "*" } }).catch(code);
    expect([stale, exists]).toEqual(["412 ConditionNotMet", "409 BlobAlreadyExists"]);
    expect((await blob.downloadToBuffer()).toString()).toBe("two");
    expect((await blob.getProperties()).etag).toBe(second.etag);
  });
});
