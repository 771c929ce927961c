/**
 * Issue 22, item 16, on a real Ceph RGW (which ignores the conditions of CompleteMultipartUpload): two multipart
 * creates of different bytes at one key, interleaved so that each one's read-back after its complete sees its own
 * bytes, must never both win; and 6 rounds of 4 racing writers end with exactly one winner whose bytes are stored.
 */
import { createHash } from "node:crypto";
import type { S3Client } from "@aws-sdk/client-s3";
import { describe, expect, inject, it } from "vitest";
import { S3Store } from "../../src/store/s3.js";
import type { StreamBody } from "../../src/store/types.js";
import { rgwHarness } from "../store/harness/rgw.js";

const partBytes = 64 * 1024;
const bytesOf = (seed: number) => Uint8Array.from({ length: 200 * 1024 }, (_, i) => (i * 31 + seed * 7) & 0xff);
const streamOf = (b: Uint8Array): StreamBody => ({
  size: b.byteLength,
  sha256: createHash("sha256").update(b).digest("hex"),
  async *chunks() {
    for (let at = 0; at < b.byteLength; at += 10_000) yield b.subarray(at, Math.min(b.byteLength, at + 10_000));
  },
});
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** Holds every command named `name` sent by this store's client until `gate` resolves. */
function holdCommand(store: S3Store, name: string, gate: Promise<void>, arrived: () => void): void {
  const client = (store as unknown as { client: S3Client }).client;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === name) {
        arrived();
        await gate;
      }
      return next(args);
    },
    { step: "initialize", name: `hold-${name}` },
  );
}

describe("multipart creates of different bytes at one key (RGW)", () => {
  it("A completes and reads back while B waits at its complete: one of them wins, and the stored bytes are the winner's", async () => {
    const fx = await rgwHarness.open();
    try {
      const a = fx.store as S3Store;
      const s3 = inject("s3") as NonNullable<ReturnType<typeof inject<"s3">>>;
      // A second writer on its own client: another process, as far as RGW can tell.
      const b = new S3Store({
        bucket: s3.bucket,
        prefix: (fx.url as string).replace(`s3://${s3.bucket}/`, ""),
        endpoint: s3.endpoint,
        region: s3.region,
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      let letB!: () => void;
      const bGate = new Promise<void>((r) => (letB = r));
      let bArrived!: () => void;
      const bAtComplete = new Promise<void>((r) => (bArrived = r));
      holdCommand(b, "CompleteMultipartUploadCommand", bGate, bArrived);
      const key = "artifacts/race/x.parquet";
      // B checks the key is free and uploads its parts, then waits at its complete.
      const bPut = b.put(key, streamOf(bytesOf(2)), { mode: "create", partBytes }).then(
        () => "won",
        (e: Error & { code?: string }) => e.code ?? e.message,
      );
      await bAtComplete;
      // A meanwhile: checks, uploads, completes and reads back its own sha256 (or waits for B's claim).
      const aPut = a.put(key, streamOf(bytesOf(1)), { mode: "create", partBytes }).then(
        () => "won",
        (e: Error & { code?: string }) => e.code ?? e.message,
      );
      await new Promise((r) => setTimeout(r, 1_500));
      letB();
      const [ra, rb] = await Promise.all([aPut, bPut]);
      expect(
        [ra, rb].filter((x) => x === "won"),
        `A: ${ra}, B: ${rb}`,
      ).toHaveLength(1);
      expect([ra, rb]).toContain("AlreadyExists");
      expect(sha((await a.get(key)).body)).toBe(sha(bytesOf(ra === "won" ? 1 : 2)));
    } finally {
      await fx.dispose();
    }
  }, 60_000);

  it("6 rounds × 4 writers of different bytes: one winner each, and the stored bytes are the winner's", async () => {
    const fx = await rgwHarness.open();
    try {
      const store = fx.store as S3Store;
      for (let round = 0; round < 6; round++) {
        const key = `artifacts/race/round-${round}.parquet`;
        const outcomes = await Promise.all(
          [1, 2, 3, 4].map((seed) =>
            store.put(key, streamOf(bytesOf(seed + round * 10)), { mode: "create", partBytes }).then(
              () => ({ seed, won: true, code: undefined as string | undefined }),
              (e: Error & { code?: string }) => ({ seed, won: false, code: e.code as string | undefined }),
            ),
          ),
        );
        const winners = outcomes.filter((o) => o.won);
        expect(winners, JSON.stringify(outcomes)).toHaveLength(1);
        expect(outcomes.filter((o) => !o.won).map((o) => o.code)).toEqual([
          "AlreadyExists",
          "AlreadyExists",
          "AlreadyExists",
        ]);
        expect(sha((await store.get(key)).body)).toBe(sha(bytesOf((winners[0] as { seed: number }).seed + round * 10)));
      }
      // No claim is left behind.
      const left: string[] = [];
      for await (const e of store.list("_tmp/")) left.push(e.key);
      expect(left).toEqual([]);
    } finally {
      await fx.dispose();
    }
  }, 120_000);
});
