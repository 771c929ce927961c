import { getIfPresent } from "../store/get-if-present.js";
import type { ObjectStore } from "../store/types.js";
import { partitionPath } from "./layout.js";
import type { Partition } from "./layout.js";
import type { Manifest } from "./types.js";

/**
 * The last run of a partition that validation or plausibility refused: bookkeeping beside the manifest, so `ls`,
 * `show` and the report can say why the partition still shows its old version. Plain overwrite, never a
 * coordination point: it matters only while the manifest still holds what it held when the run was refused.
 */
export interface Refusal {
  format: "georefresh.refusal/1";
  dataset: string;
  region: string;
  logical_date: string;
  /** The key the refused run computed. */
  key: string | null;
  run_id: string;
  /** Wall clock, like promoted_at: bookkeeping, never in a key or artifact. */
  at: string;
  message: string;
  /** What the manifest held when the run was refused (null: no version yet). */
  current_sha256: string | null;
}

export const refusalKey = (p: Partition) => `refusals/${p.dataset}/${partitionPath(p)}.json`;
const refusalPrefix = (dataset: string) => `refusals/${dataset}/`;

/** Messages are cut here: a refusal names its problems, not every row. */
const MESSAGE_MAX = 4000;

export async function recordRefusal(store: ObjectStore, refusal: Omit<Refusal, "format">): Promise<void> {
  const doc: Refusal = { format: "georefresh.refusal/1", ...refusal, message: refusal.message.slice(0, MESSAGE_MAX) };
  await store.put(refusalKey({ dataset: doc.dataset, region: doc.region, date: doc.logical_date }), json(doc), {
    contentType: "application/json",
  });
}

const json = (doc: unknown) => new TextEncoder().encode(`${JSON.stringify(doc, null, 2)}\n`);

/** A refusal still explains the partition while its manifest holds what it held then. */
export function stillRefused(refusal: Refusal, manifest: Manifest | undefined): boolean {
  return !manifest?.retired && (manifest?.current?.sha256 ?? null) === refusal.current_sha256;
}

/** The dataset's recorded refusals by "region/date"; a file that is not one (tampered, foreign) is left out. */
export async function refusalsOf(store: ObjectStore, dataset: string): Promise<Map<string, Refusal>> {
  const out = new Map<string, Refusal>();
  for await (const entry of store.list(refusalPrefix(dataset))) {
    const got = await getIfPresent(store, entry.key);
    const doc = got ? parse(got.body) : undefined;
    if (
      !doc ||
      doc.dataset !== dataset ||
      refusalKey({ dataset, region: doc.region, date: doc.logical_date }) !== entry.key
    )
      continue;
    out.set(`${doc.region}/${doc.logical_date}`, doc);
  }
  return out;
}

/** The one refusal of a partition, if recorded. */
export async function refusalOf(store: ObjectStore, p: Partition): Promise<Refusal | undefined> {
  const got = await getIfPresent(store, refusalKey(p));
  const doc = got ? parse(got.body) : undefined;
  return doc && doc.dataset === p.dataset && doc.region === p.region && doc.logical_date === p.date ? doc : undefined;
}

function parse(body: Uint8Array): Refusal | undefined {
  try {
    const d = JSON.parse(new TextDecoder().decode(body)) as Partial<Refusal>;
    const str = (v: unknown) => typeof v === "string";
    if (
      d.format !== "georefresh.refusal/1" ||
      ![d.dataset, d.region, d.logical_date, d.run_id, d.at, d.message].every(str) ||
      !(d.key === null || str(d.key)) ||
      !(d.current_sha256 === null || str(d.current_sha256))
    )
      return undefined;
    // Printed on terminals: no control characters from a file anyone could have written.
    return {
      ...(d as Refusal),
      message: (d.message as string).replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").slice(0, MESSAGE_MAX),
    };
  } catch {
    return undefined;
  }
}
