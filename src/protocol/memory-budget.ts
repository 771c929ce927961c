export { MemorySettingError, parseBytes } from "../sizes.js";

/**
 * What the memory setting (`--max-memory`, a dataset's "maxMemory") bounds: the bytes georefresh buffers of an
 * artifact beyond compute's own rows (docs/large-partitions.md). Half may hold the staged artifact in memory
 * (beyond that it goes to a temp file), a quarter one upload part and one read chunk. Nothing can go below one
 * row group, which is encoded, read back and checked whole.
 */
export interface MemoryBudget {
  bytes: number;
  /** The staged artifact stays in memory up to this size. */
  stageInMemory: number;
  /** The largest upload part and read chunk. */
  partBytes: number;
}

export const DEFAULT_MAX_MEMORY = 256 * 2 ** 20;
const MAX_PART = 64 * 2 ** 20;
export function memoryBudget(bytes = DEFAULT_MAX_MEMORY): MemoryBudget {
  return { bytes, stageInMemory: Math.floor(bytes / 2), partBytes: Math.min(MAX_PART, Math.floor(bytes / 4)) };
}
