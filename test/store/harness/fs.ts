import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsStore } from "../../../src/store/fs.js";
import type { StoreHarness } from "./harness.js";

/** The local filesystem store, in a fresh temp directory: the embedded default. */
export const fsHarness: StoreHarness = {
  name: "fs",
  capabilities: { crossProcess: true, predictsVersions: true, listing: "never", listedVersions: false, remote: false },
  unavailable: () => undefined,
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "georefresh-store-"));
    const store = new FsStore(dir);
    return { store, url: dir, env: {}, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};
