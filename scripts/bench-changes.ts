/**
 * npm run bench:changes — the change set of 1M keyed rows against 1M (1 % changed: 0.5 % moved, 0.5 % with an
 * edited attribute), beside the time to write the 1M-row artifact itself, in one run. The change set is computed
 * as `georefresh changes --from --to` does (both artifacts digested from their bytes by row group, merged in key
 * order, the changed rows read again, the changelog encoded); a promotion does less (its own side is digested
 * during read-back validation, and in a backfill the previous date's digests are still cached; a lone run digests
 * the previous side on a second thread while it writes, timed here against a second write). Prints the times, their ratio (target ≤ 0.5), and the peak RSS above the
 * baseline while the change set ran, beside the two artifacts' sizes (memory must stay bounded: 24 bytes a row
 * per side, no table held). `--rows 200000` for a quick look.
 */
import { performance } from "node:perf_hooks";
import type { Table } from "apache-arrow";
import { changelogOf, encodeChangelog } from "../src/changes/changelog.js";
import type { Side } from "../src/changes/changelog.js";
import { diffDigests } from "../src/changes/diff.js";
import { digestReady, RowDigester } from "../src/changes/row-digest.js";
import { crsFromCode } from "../src/geo/crs/crs.js";
import { syntheticParcels } from "./synthetic-parcels.js";
import { openRanged } from "../src/geoparquet/ranged-read.js";
import type { RangeSource } from "../src/geoparquet/ranged-read.js";
import { writeGeoParquet } from "../src/geoparquet/write.js";
import { digestAhead } from "../src/changes/side-ahead.js";
import { loadStore } from "../src/store/backends.js";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROWS = Number(arg("rows") ?? 1_000_000);

const parcels = (n: number, version: 0 | 1): Table => syntheticParcels(n, version);

const memory = (bytes: Uint8Array): RangeSource => ({
  size: bytes.byteLength,
  read: async (offset, length) => bytes.subarray(offset, offset + length),
});

/** One side digested from its bytes; `hashMs` is the time spent hashing (not decoding), what validation adds. */
async function side(bytes: Uint8Array, where: string): Promise<Side & { hashMs: number }> {
  const open = () => openRanged(memory(bytes), where, { chunkBytes: 8 * 2 ** 20 });
  const file = await open();
  const digester = new RowDigester({ key: ["parcel_id"], geometry: "geometry", skip: ["bbox"] }, file.rows);
  let hashMs = 0;
  for await (const g of file.rowGroups(file.columns.filter((c) => c !== "bbox"))) {
    const t = performance.now();
    digester.group(g.table);
    hashMs += performance.now() - t;
  }
  return { digests: digester.finish(), open, geometry: "geometry", hashMs };
}

const mib = (n: number) => (n / 2 ** 20).toFixed(0);

async function main(): Promise<void> {
  const crs = crsFromCode("OGC:CRS84");
  const [a, b] = [parcels(ROWS, 0), parcels(ROWS, 1)];
  let t = performance.now();
  const before = (await writeGeoParquet(a, { crs, idColumn: "parcel_id" })).bytes;
  if (process.env.BENCH_DUMP) (await import("node:fs")).writeFileSync(process.env.BENCH_DUMP, before);
  const writeMs = performance.now() - t;
  const after = (await writeGeoParquet(b, { crs, idColumn: "parcel_id" })).bytes;
  await digestReady();
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  t = performance.now();
  const sb = await side(before, "before");
  const beforeMs = performance.now() - t;
  const sa = await side(after, "after");
  const digestMs = performance.now() - t;
  let t1 = performance.now();
  const diff = diffDigests(sb.digests, sa.digests);
  const log = await changelogOf(diff, ["parcel_id"], sb, sa);
  const changelog = await encodeChangelog(log);
  const restMs = performance.now() - t1;
  const changesMs = performance.now() - t;
  // What a promotion adds: its own side is only hashed (validation decodes it anyway), the previous one is read.
  const promotionMs = sa.hashMs + beforeMs + restMs;
  t1 = 0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const c = diff.counts;
  console.log(
    `rows: ${ROWS.toLocaleString("en-US")} per side; artifacts ${mib(before.byteLength)} MiB and ${mib(after.byteLength)} MiB`,
  );
  console.log(
    `counts: ${c.added} added, ${c.removed} removed, ${c.geometry_changed} geometry, ${c.attributes_changed} attributes, ${c.unchanged} unchanged; changelog ${(changelog.byteLength / 1024).toFixed(0)} KiB`,
  );
  console.log(`write the ${ROWS.toLocaleString("en-US")}-row artifact (reference): ${(writeMs / 1000).toFixed(2)} s`);
  console.log(
    `changes --from --to (both sides read and digested ${(digestMs / 1000).toFixed(2)} s, merge and changelog ${(restMs / 1000).toFixed(2)} s): ${(changesMs / 1000).toFixed(2)} s = ${(changesMs / writeMs).toFixed(2)}× the write`,
  );
  console.log(
    `what a promotion adds (its side hashed ${(sa.hashMs / 1000).toFixed(2)} s during validation, the previous side read and digested ${(beforeMs / 1000).toFixed(2)} s, merge and changelog): ${(promotionMs / 1000).toFixed(2)} s = ${(promotionMs / writeMs).toFixed(2)}× the write (target ≤ 0.5×)`,
  );
  const nextMs = sa.hashMs + restMs;
  console.log(
    `a backfill's next date (the previous version's digests still in this process's cache): ${(nextMs / 1000).toFixed(2)} s = ${(nextMs / writeMs).toFixed(2)}× the write (target ≤ 0.5×)`,
  );
  // A lone run (no digests cached): the previous version is digested on a second thread (changes/side-ahead.ts)
  // while this one writes the new artifact; on its own path it pays only the wait, if any, its side's hashing and
  // the merge.
  const dir = mkdtempSync(join(tmpdir(), "georefresh-bench-changes-"));
  try {
    const store = await loadStore(dir);
    await store.put("before.parquet", before);
    const entry = {
      artifact: "before.parquet",
      bytes: before.byteLength,
      sha256: createHash("sha256").update(before).digest("hex"),
      columns: ["parcel_id", "geometry"].map((name) => ({ name, type: "" })),
      rows: ROWS,
    };
    const t2 = performance.now();
    const ahead = digestAhead(store, entry, ["parcel_id"], 8 * 2 ** 20);
    if (!ahead) throw new Error("the previous side was not digested ahead");
    await writeGeoParquet(b, { crs, idColumn: "parcel_id" });
    const written = performance.now();
    if (!(await ahead.side)) throw new Error("the second thread gave no digests");
    const waitMs = performance.now() - written;
    const loneMs = waitMs + sa.hashMs + restMs;
    console.log(
      `a lone run, the previous side digested on a second thread while the new artifact is written (${((written - t2) / 1000).toFixed(2)} s; then waited ${(waitMs / 1000).toFixed(2)} s): on its path ${(loneMs / 1000).toFixed(2)} s = ${(loneMs / writeMs).toFixed(2)}× the write (target ≤ 0.5×)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const held = (d: Side["digests"]) =>
    d.key.byteLength +
    d.attributes.byteLength +
    d.geometry.byteLength +
    d.columnHashes.byteLength +
    d.keyBytes.byteLength +
    d.keyOffsets.byteLength;
  console.log(
    `peak RSS above baseline while computing it: ${mib(peak - base)} MiB (the digests of both sides: ${mib(held(sb.digests) + held(sa.digests))} MiB; the two artifacts: ${mib(before.byteLength + after.byteLength)} MiB)`,
  );
}

await main();
