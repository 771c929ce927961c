import { randomUUID } from "node:crypto";
import { MemoryStore } from "../../../src/store/memory.js";
import type { StoreHarness } from "./harness.js";

/** The in-process memory store, under a fresh name. It stands in for a listing store when a suite asks it to. */
export const memoryHarness: StoreHarness = {
  name: "memory",
  capabilities: {
    crossProcess: false,
    predictsVersions: true,
    listing: "optional",
    listedVersions: true,
    remote: false,
  },
  unavailable: () => undefined,
  async open() {
    const name = `test-${randomUUID()}`;
    return { store: new MemoryStore(name), url: undefined, env: {}, dispose: async () => MemoryStore.reset(name) };
  },
};
