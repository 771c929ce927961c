/** A byte buffer written front to back that doubles when full: the base of the encoders that build rows. */
export class GrowableBytes {
  protected buf: Uint8Array;
  protected view: DataView;
  at = 0;

  constructor(initial = 4096) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  /** Makes room for `n` more bytes at `at`. */
  protected room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    grown.set(this.buf.subarray(0, this.at));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }
}
