import { MemoryStore } from "./memory.js";
import { registerStoreScheme, splitAfterRoot } from "./schemes.js";

/** memory://name → a store in this process's memory (tests, examples); other threads and processes cannot reach it. */
registerStoreScheme({
  schemes: ["memory"],
  example: "memory://name",
  open: (url) => new MemoryStore(url.slice("memory://".length) || "default"),
  split: splitAfterRoot("name"),
  processLocal: true,
});
