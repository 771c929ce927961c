import type { ObjectStore } from "../store/types.js";
import type { RangeSource } from "./ranged-read.js";

/**
 * An object read by byte ranges; its size is given or comes from one ranged read. One no larger than `whole`
 * is fetched in one GET and its ranges served from that, so a small artifact costs what it did before ranges.
 */
export async function storeSource(
  store: ObjectStore,
  key: string,
  whole: number,
  known?: number,
): Promise<RangeSource> {
  let all: Uint8Array | undefined;
  let size = known;
  if (size === undefined) {
    const first = await store.get(key, { range: { offset: 0, length: 0 } });
    size = first.meta.size;
  }
  const read = async (offset: number, length: number) => {
    if (size !== undefined && size <= whole) {
      all ??= (await store.get(key)).body;
      return all.subarray(offset, offset + length);
    }
    return (await store.get(key, { range: { offset, length } })).body;
  };
  return { size, read };
}
