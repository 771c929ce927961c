import { randomUUID } from "node:crypto";
import { isStoreError } from "./errors.js";
import type { ObjectStore } from "./types.js";

export interface ProbeCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** The store error's code when a check failed on one (Unavailable: unreachable, not a store without conditions). */
  code?: string;
}

export interface ProbeReport {
  store: string;
  ok: boolean;
  checks: ProbeCheck[];
}

export const PROBE_PREFIX = "_probe";

/**
 * Proves on a scratch key that the store honours the two conditions promotion relies on. Stores that accept
 * the headers and ignore them (s3rver, smarts3, fauxqs) fail here, before they can let two runs both win.
 */
export async function probeStore(store: ObjectStore): Promise<ProbeReport> {
  const key = `${PROBE_PREFIX}/${randomUUID()}`;
  const enc = (s: string) => new TextEncoder().encode(s);
  const checks: ProbeCheck[] = [];
  const check = async (name: string, run: () => Promise<string>): Promise<boolean> => {
    try {
      checks.push({ name, ok: true, detail: await run() });
      return true;
    } catch (error) {
      checks.push({
        name,
        ok: false,
        detail: error instanceof Error ? error.message : String(error),
        ...(isStoreError(error) ? { code: error.code } : {}),
      });
      return false;
    }
  };
  const expectRefusal = async (
    what: string,
    code: "AlreadyExists" | "PreconditionFailed",
    run: () => Promise<unknown>,
  ) => {
    try {
      await run();
    } catch (error) {
      if (isStoreError(error, code)) return `refused as expected (${code})`;
      throw error;
    }
    throw new Error(
      `${what} was accepted: this store ignores conditional writes, so two runs could both promote; use a store that honours If-None-Match / If-Match (AWS S3, Ceph RGW, MinIO, R2, Azure Blob Storage)`,
    );
  };

  let first = "";
  let second = "";
  try {
    (await check("create when absent", async () => {
      first = (await store.put(key, enc("probe 1"), { mode: "create" })).version;
      return `created ${store.locate(key)}`;
    })) &&
      (await check("create when present is refused", () =>
        expectRefusal("a second create of the same key", "AlreadyExists", () =>
          store.put(key, enc("probe 2"), { mode: "create" }),
        ),
      )) &&
      (await check("update with the current version", async () => {
        second = (await store.put(key, enc("probe 3"), { mode: { update: first } })).version;
        if (second === first) throw new Error("the version did not change when the bytes did");
        return "accepted";
      })) &&
      (await check("update with a stale version is refused", () =>
        expectRefusal("an update with a stale version", "PreconditionFailed", () =>
          store.put(key, enc("probe 4"), { mode: { update: first } }),
        ),
      )) &&
      (await check("read back the winner", async () => {
        const text = new TextDecoder().decode((await store.get(key)).body);
        if (text !== "probe 3")
          throw new Error(`expected "probe 3", read ${JSON.stringify(text)}: a refused write changed the object`);
        return "bytes match";
      }));
  } finally {
    await check("clean up", async () => {
      await store.delete(key);
      return `deleted ${store.locate(key)}`;
    });
  }
  return { store: store.url, ok: checks.every((c) => c.ok), checks };
}
