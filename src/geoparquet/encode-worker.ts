import { parentPort } from "node:worker_threads";
import { runEncodeJob } from "./encode-groups.js";
import { zstdReady } from "./zstd-pages.js";
import type { EncodeJob } from "./encode-groups.js";

parentPort?.on("message", async (msg: EncodeJob & { id: number }) => {
  try {
    await zstdReady();
    const { group } = runEncodeJob(msg);
    parentPort?.postMessage({ id: msg.id, group }, [group.bytes.buffer as ArrayBuffer]);
  } catch (error) {
    parentPort?.postMessage({ id: msg.id, error: error instanceof Error ? error.message : String(error) });
  }
});
