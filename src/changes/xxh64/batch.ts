import { XXH64_WASM } from "./xxh64-module.js";

interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  batch(data: number, offsets: number, n: number, seed: bigint, out: number): void;
}

/** Node's WebAssembly (the project's TypeScript lib has no DOM types for it). */
const wasm = (
  globalThis as unknown as {
    WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (m: object) => { exports: unknown } };
  }
).WebAssembly;

let exports: Exports | undefined;

/** The module, compiled once per thread (678 bytes: synchronously). */
function module(): Exports {
  exports ??= new wasm.Instance(new wasm.Module(Buffer.from(XXH64_WASM, "base64"))).exports as Exports;
  return exports;
}

const PAGE = 65_536;
const align8 = (n: number) => Math.ceil(n / 8) * 8;

/**
 * XXH64 of many byte ranges in one call into WebAssembly (xxh64.wat): `out[outAt + i]` = XXH64 of
 * `data[offsets[i] … offsets[i + 1])` with `seed`, for i < n. One copy of the bytes and offsets in, one of the
 * hashes out: no crossing and no BigInt per value.
 */
export function xxh64Batch(
  data: Uint8Array,
  offsets: ArrayLike<number>,
  n: number,
  seed: bigint,
  out: BigUint64Array,
  outAt = 0,
): void {
  if (n === 0) return;
  const m = module();
  const first = offsets[0] as number;
  const bytes = (offsets[n] as number) - first;
  const offsetsAt = align8(bytes);
  const outPtr = align8(offsetsAt + 4 * (n + 1));
  const need = outPtr + 8 * n;
  const have = m.memory.buffer.byteLength;
  if (need > have) m.memory.grow(Math.ceil((need - have) / PAGE));
  const memory = m.memory.buffer;
  new Uint8Array(memory, 0, bytes).set(data.subarray(first, first + bytes));
  const into = new Int32Array(memory, offsetsAt, n + 1);
  for (let i = 0; i <= n; i++) into[i] = (offsets[i] as number) - first;
  m.batch(0, offsetsAt, n, BigInt.asIntN(64, seed), outPtr);
  out.set(new BigUint64Array(memory, outPtr, n), outAt);
}
