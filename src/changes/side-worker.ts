/**
 * A worker thread that digests a stored version (compare.ts's storedSide) while the thread that started it
 * computes the next one (side-ahead.ts): it opens the store from its URL, once, and answers with the digests'
 * buffers transferred and the key's Arrow types as an IPC schema (DataType objects do not survive the copy).
 */
import { parentPort } from "node:worker_threads";
import { Field, Schema, Table, tableToIPC } from "apache-arrow";
import type { DataType } from "apache-arrow";
import { loadStore } from "../store/backends.js";
import type { ObjectStore } from "../store/types.js";
import { storedSide } from "./compare.js";
import type { SideJob, SideResult } from "./side-ahead.js";

const stores = new Map<string, Promise<ObjectStore>>();

parentPort?.on("message", async (msg: SideJob & { id: number }) => {
  try {
    let store = stores.get(msg.store);
    if (!store) stores.set(msg.store, (store = loadStore(msg.store)));
    const side = await storedSide(await store, msg.entry, msg.key, msg.chunkBytes);
    if (!side) return parentPort?.postMessage({ id: msg.id, none: true });
    const { keyTypes, ...digests } = side.digests;
    const schema = new Schema(msg.key.map((k, i) => new Field(k, keyTypes[i] as DataType, true)));
    const keySchema = tableToIPC(new Table(schema), "stream");
    const result: SideResult = { digests, keySchema, geometry: side.geometry };
    const buffers = [
      digests.key,
      digests.attributes,
      digests.geometry,
      digests.columnHashes,
      digests.keyBytes,
      digests.keyOffsets,
    ].map((a) => a.buffer as ArrayBuffer);
    parentPort?.postMessage({ id: msg.id, ...result }, [...new Set(buffers)]);
  } catch (error) {
    parentPort?.postMessage({ id: msg.id, error: error instanceof Error ? error.message : String(error) });
  }
});
