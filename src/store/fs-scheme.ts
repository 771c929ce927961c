import { fileURLToPath } from "node:url";
import { FsStore } from "./fs.js";
import type { FsStoreOptions } from "./fs.js";
import { registerStoreScheme } from "./schemes.js";

declare module "./schemes.js" {
  interface OpenStoreOptions {
    fs?: FsStoreOptions;
  }
}

/** A plain path or file:///abs/path → the filesystem store (the embedded default). */
registerStoreScheme({ schemes: [""], example: "a directory", open: (url, o) => new FsStore(url, o.fs) });
registerStoreScheme({
  schemes: ["file"],
  example: "file:///path",
  open: (url, o) => new FsStore(fileURLToPath(url), o.fs),
});
