import { appendFile } from "node:fs/promises";
import type { OutboxTransport } from "../../src/outbox/transport.js";

/** A second outbox transport, to prove the seam: each event appended to a local file as one JSON line. */
export function fileTransport(path: string): OutboxTransport {
  return {
    name: "file",
    timeoutMs: 1000,
    async send(event) {
      await appendFile(path, `${JSON.stringify(event)}\n`);
      return { ok: true, retry: false, detail: `appended to ${path}` };
    },
  };
}
