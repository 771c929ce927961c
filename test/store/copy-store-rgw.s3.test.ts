/**
 * Moving a `./data` store to a bucket by a plain copy, as `aws s3 sync` makes one (a PUT per file, its bytes, no
 * metadata of ours; fs's own `.georefresh/` and `_tmp/` left out, as README says), keeps it a valid store: the
 * artifacts' sha256 is in the manifests, not in object metadata, and a manifest's version is whatever the new
 * store answers. On real S3 (RGW): every read checks out, the re-run changes nothing and commits the same
 * content-addressed snapshot, finalize finds the window complete, and the next promotion goes through.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, inject, it } from "vitest";
import { runCliHere as runCli } from "../helpers/cli.js";
import { s3Env } from "./harness/rgw.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-copy-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const feed = (region: string, date: string, zoning: string) =>
  writeFileSync(
    join(dir, `${region}-${date}.geojson`),
    JSON.stringify({
      type: "FeatureCollection",
      features: [0, 1, 2].map((k) => ({
        type: "Feature",
        properties: { id: `${region}-${k}`, zoning: k === 0 ? zoning : "R1" },
        geometry: { type: "Point", coordinates: [-104.8 + k * 0.01, 40.4] },
      })),
    }),
  );

const walk = (d: string): string[] =>
  readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));

describe("a ./data store copied to S3 as aws s3 sync copies it", () => {
  it("reads, re-runs as a no-op with the same snapshot, finalizes, and promotes the next change", async () => {
    const s3 = inject("s3");
    if (!s3) throw new Error("no S3 server");
    const prefix = `copied-${process.pid}`;
    const config = (store: string) => {
      const path = join(dir, store.startsWith("s3:") ? "s3.config.json" : "fs.config.json");
      writeFileSync(
        path,
        JSON.stringify({
          store,
          datasets: {
            parcels: { source: { url: "./{region}-{date}.geojson", key: ["id"] }, regions: ["weld", "larimer"] },
          },
        }),
      );
      return path;
    };
    for (const region of ["weld", "larimer"])
      for (const date of ["2026-03-01", "2026-03-02"]) feed(region, date, date === "2026-03-01" ? "AG" : "C2");
    const window = ["--dataset", "parcels", "--from", "2026-03-01", "--to", "2026-03-02"];
    const first = await runCli(["backfill", ...window, "--config", config("./data")]);
    expect(first.stdout, first.stderr).toMatch(/4 partitions: 4 promoted; snapshot (\w+)/);
    const snapshot = /snapshot (\w+)/.exec(first.stdout)?.[1];

    // The copy: a PUT per file, as sync does, without the filesystem store's own folders.
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    const root = join(dir, "data");
    const files = walk(root).filter((f) => !/^(\.georefresh|_tmp)\//.test(relative(root, f)));
    for (const f of files)
      await client.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/${relative(root, f)}`, Body: readFileSync(f) }),
      );
    client.destroy();
    expect(files.length).toBeGreaterThan(8);

    const store = `s3://${s3.bucket}/${prefix}`;
    const env = s3Env();
    const read = await runCli(
      ["read", "parcels", "--store", store, "--region", "weld", "--latest-date", "--format", "geojson"],
      env,
    );
    expect(read.code, read.stderr).toBe(0); // the artifact's sha256, checked on read, is the manifest's
    expect((JSON.parse(read.stdout) as { features: unknown[] }).features).toHaveLength(3);
    const again = await runCli(["backfill", ...window, "--config", config(store)], env);
    expect(again.stdout, again.stderr).toBe(`parcels: 4 partitions: 4 unchanged; snapshot ${snapshot}\n`);
    const fin = await runCli(["finalize", ...window, "--config", config(store)], env);
    expect(fin.code, fin.stdout).toBe(0);

    // The next night on the bucket: a conditional write of a manifest whose version S3 gave it.
    feed("weld", "2026-03-02", "I1");
    const next = await runCli(["backfill", ...window, "--config", config(store)], env);
    expect(next.stdout, next.stderr).toMatch(/4 partitions: 1 promoted, 3 unchanged/);
  }, 120_000);
});
