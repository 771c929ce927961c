import { parentPort } from "node:worker_threads";
import { runEncodeJob } from "./encode-groups.js";
import { zstdReady } from "./zstd-pages.js";
import type { EncodeJob } from "./encode-groups.js";

parentPort?.on("message", async (msg: EncodeJob & { id: number }) => {
  try {
    await zstdReady();
    const { groups } = runEncodeJob(msg);
    const transfer = groups.map((g) => g.group.bytes.buffer as ArrayBuffer);
    parentPort?.postMessage({ id: msg.id, groups }, transfer);
  } catch (error) {
    parentPort?.postMessage({ id: msg.id, error: error instanceof Error ? error.message : String(error) });
  }
});
