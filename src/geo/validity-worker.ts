import { parentPort } from "node:worker_threads";
import { validateChunk } from "./validity-core.js";
import type { ValidationChunk } from "./validity-core.js";

parentPort?.on("message", async (msg: { id: number; chunk: ValidationChunk }) => {
  try {
    parentPort?.postMessage({ id: msg.id, issues: await validateChunk(msg.chunk) });
  } catch (error) {
    parentPort?.postMessage({ id: msg.id, error: error instanceof Error ? error.message : String(error) });
  }
});
