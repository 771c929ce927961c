import { readManifest } from "../manifest/codec.js";
import { outboxPrefix, readRecord } from "../manifest/outbox.js";
import { PROBE_PREFIX } from "../store/probe.js";
import { S3Store } from "../store/s3.js";
import type { ObjectStore } from "../store/types.js";
import { manifestKey, partitionOfManifestKey } from "./layout.js";

export interface GcOptions {
  /** Nothing younger than this is ever touched. */
  olderThanMs: number;
  /** Without it, gc only reports. */
  apply: boolean;
  /** Also remove artifacts no manifest references (current or history), keeping the newest `keep` per partition. */
  artifacts?: { keep: number };
  /** The clock gc compares ages with (tests move it forward; never used for keys). */
  now?: Date;
}

export interface GcReport {
  applied: boolean;
  temp: string[];
  outbox: string[];
  artifacts: string[];
  uploads: string[];
}

/**
 * Removes what a crash or a lost race leaves behind and readers never see: temp objects under _tmp/ and _probe/, outbox
 * events whose change never reached a manifest, stale multipart uploads (S3), and, when asked, unreferenced
 * artifacts. Never touches anything younger than the floor or referenced by a manifest.
 */
export async function collectGarbage(store: ObjectStore, opts: GcOptions): Promise<GcReport> {
  const floor = new Date((opts.now ?? new Date()).getTime() - opts.olderThanMs);
  const report: GcReport = { applied: opts.apply, temp: [], outbox: [], artifacts: [], uploads: [] };

  // Temp artifacts of runs that died, and scratch keys of capability probes that died mid-probe.
  for (const prefix of ["_tmp/", `${PROBE_PREFIX}/`]) for await (const e of store.list(prefix)) if (e.lastModified < floor) report.temp.push(e.key);

  for await (const e of store.list(outboxPrefix())) {
    if (e.lastModified >= floor) continue;
    const found = await readRecord(store, e.key).catch(() => undefined);
    if (!found || found.record.status !== "pending") continue;
    const ev = found.record.event;
    const manifest = (await readManifest(store, manifestKey({ dataset: ev.dataset, region: ev.region, date: ev.logical_date })))?.manifest;
    if (!manifest || ![manifest.current, ...manifest.history].some((m) => m?.sha256 === ev.sha256)) report.outbox.push(e.key);
  }

  if (opts.artifacts) {
    const referenced = new Set<string>();
    for await (const e of store.list("manifests/")) {
      if (!partitionOfManifestKey(e.key)) continue;
      const m = (await readManifest(store, e.key))?.manifest;
      for (const entry of [m?.current, ...(m?.history ?? [])]) if (entry) referenced.add(entry.artifact);
    }
    const byPartition = new Map<string, { key: string; at: Date }[]>();
    for await (const e of store.list("artifacts/")) {
      if (referenced.has(e.key) || e.lastModified >= floor) continue;
      const dir = e.key.slice(0, e.key.lastIndexOf("/"));
      byPartition.set(dir, [...(byPartition.get(dir) ?? []), { key: e.key, at: e.lastModified }]);
    }
    for (const list of byPartition.values()) {
      list.sort((a, b) => b.at.getTime() - a.at.getTime() || (a.key < b.key ? -1 : 1));
      report.artifacts.push(...list.slice(opts.artifacts.keep).map((x) => x.key));
    }
  }

  const uploads: { key: string; uploadId: string }[] = [];
  if (store instanceof S3Store) for await (const u of store.staleUploads(floor)) uploads.push(u);
  report.uploads = uploads.map((u) => `${u.key} (upload ${u.uploadId})`);

  if (opts.apply) {
    for (const key of [...report.temp, ...report.outbox, ...report.artifacts]) await store.delete(key);
    if (store instanceof S3Store) for (const u of uploads) await store.abortUpload(u.key, u.uploadId);
  }
  return report;
}

/** "24h", "90m", "7d", "30s" → milliseconds. */
export function parseAge(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/.exec(text.trim());
  if (!m) throw new RangeError(`--older-than ${text}: expected a number with s, m, h or d (e.g. 24h)`);
  return Number(m[1]) * { s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7 }[m[2] as "s" | "m" | "h" | "d"];
}
