/**
 * Which module registers each built-in scheme, loaded on first use: a command pays only for the SDK of the store
 * it opens (the AWS and Azure SDKs take 0.2 s each to load). A new backend is its own file that calls
 * registerStoreScheme, plus one line here (and one import in open.ts for library callers).
 */
export const BACKENDS: Record<string, () => Promise<unknown>> = {
  "": () => import("./fs-scheme.js"),
  file: () => import("./fs-scheme.js"),
  memory: () => import("./memory-scheme.js"),
  s3: () => import("./s3-scheme.js"),
  az: () => import("./azure.js"),
  azure: () => import("./azure.js"),
};
