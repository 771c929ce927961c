import type { Readable } from "node:stream";

/**
 * Exact-length reads from a stream of chunks: a Shapefile's .shp and .dbf are read side by side, record by record,
 * each from its own stream, so neither is ever held whole.
 */
export class ByteReader {
  private readonly chunks: AsyncIterator<Uint8Array>;
  private buffer: Uint8Array = new Uint8Array(0);
  private at = 0;
  /** Bytes consumed so far. */
  offset = 0;

  constructor(stream: Readable | AsyncIterable<Uint8Array>) {
    this.chunks = (stream as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  }

  /**
   * The next `n` bytes when they are already buffered, else undefined (nothing consumed): a reader of many small
   * records takes this path for nearly all of them, without an await each.
   */
  buffered(n: number): Uint8Array | undefined {
    return this.buffer.length - this.at < n ? undefined : this.take(n);
  }

  /** The next `n` bytes, or fewer at the end of the stream (none: an empty array). */
  async read(n: number): Promise<Uint8Array> {
    if (this.buffer.length - this.at < n) {
      // Gather whole chunks first and join once: a record of many chunks costs one copy, not one per chunk.
      const parts: Uint8Array[] = [this.buffer.subarray(this.at)];
      let total = parts[0]?.length ?? 0;
      while (total < n) {
        const next = await this.chunks.next();
        if (next.done) break;
        parts.push(next.value);
        total += next.value.length;
      }
      const joined = new Uint8Array(total);
      let at = 0;
      for (const p of parts) {
        joined.set(p, at);
        at += p.length;
      }
      this.buffer = joined;
      this.at = 0;
    }
    return this.take(n);
  }

  /** Up to `n` buffered bytes, consumed. */
  private take(n: number): Uint8Array {
    const out = this.buffer.subarray(this.at, Math.min(this.at + n, this.buffer.length));
    this.at += out.length;
    this.offset += out.length;
    return out;
  }

  async close(): Promise<void> {
    await this.chunks.return?.();
  }
}
