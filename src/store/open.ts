/**
 * Every built-in backend, registered now: importing this module (as the library's index does) makes openStore
 * answer for all of them synchronously. The CLI instead loads only the backend a URL names (backends.ts).
 */
import "./fs-scheme.js";
import "./memory-scheme.js";
import "./s3-scheme.js";
import "./azure.js";

export { loadScheme, loadStore } from "./backends.js";
export {
  openObject,
  isObjectUrl,
  openStore,
  registerStoreScheme,
  sharedAcrossProcesses,
  splitAfterRoot,
} from "./schemes.js";
export type { OpenStoreOptions, StoreScheme } from "./schemes.js";
