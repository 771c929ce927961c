/**
 * A FlatGeobuf feature's flatbuffer read in place, from the reader's buffer: no ByteBuffer, Feature or Geometry
 * object and no copy of the feature per row (those cost more than decoding it). Every position is checked against
 * the feature's own bytes, so a tampered offset or length is a RangeError, never a read of the next feature.
 * The layout is FlatGeobuf's feature.fbs: Feature { geometry, properties, … }, Geometry { ends, xy, z, m,
 * t, tid, type, parts }.
 */
export class FgbFeature {
  private buffer: ArrayBufferLike = new ArrayBuffer(0);
  private view = new DataView(this.buffer);
  private u8 = new Uint8Array(this.buffer);
  private start = 0;
  private end = 0;
  private root = 0;

  /** Points at a feature's bytes (after its size prefix); the view is made once per buffer, not per feature. */
  at(body: Uint8Array): this {
    if (body.buffer !== this.buffer) {
      this.buffer = body.buffer;
      this.view = new DataView(body.buffer);
      this.u8 = new Uint8Array(body.buffer);
    }
    this.start = body.byteOffset;
    this.end = body.byteOffset + body.byteLength;
    this.root = this.offset(this.start);
    return this;
  }

  private check(pos: number, length: number): void {
    if (pos < this.start || pos + length > this.end) throw new RangeError("an offset points outside the feature");
  }

  /** The position an unsigned offset at `pos` points to. */
  private offset(pos: number): number {
    this.check(pos, 4);
    return pos + this.view.getUint32(pos, true);
  }

  /** Where field `i` of the table at `table` is, or -1 when the table does not have it. */
  field(table: number, i: number): number {
    this.check(table, 4);
    const vtable = table - this.view.getInt32(table, true);
    this.check(vtable, 4);
    const length = this.view.getUint16(vtable, true);
    const slot = 4 + 2 * i;
    if (slot + 2 > length) return -1;
    this.check(vtable + slot, 2);
    const o = this.view.getUint16(vtable + slot, true);
    return o === 0 ? -1 : table + o;
  }

  /** A vector field of the table: where its elements start and how many there are (-1 and 0 when absent). */
  vector(table: number, i: number, elementBytes: number): [number, number] {
    const f = this.field(table, i);
    if (f < 0) return [-1, 0];
    const v = this.offset(f);
    this.check(v, 4);
    const n = this.view.getUint32(v, true);
    this.check(v + 4, n * elementBytes);
    return [v + 4, n];
  }

  /** A table field of the table (-1 when absent). */
  table(table: number, i: number): number {
    const f = this.field(table, i);
    return f < 0 ? -1 : this.offset(f);
  }

  /** The feature's geometry table (-1 when it has none). */
  geometry(): number {
    return this.table(this.root, 0);
  }

  /** The feature's properties bytes (empty when it has none). */
  properties(): Uint8Array {
    const [at, n] = this.vector(this.root, 1, 1);
    return at < 0 ? EMPTY : this.u8.subarray(at, at + n);
  }

  /** A geometry table's type (0 when it leaves it to the header). */
  geometryType(g: number): number {
    const f = this.field(g, 6);
    if (f < 0) return 0;
    this.check(f, 1);
    return this.view.getUint8(f);
  }

  f64(pos: number): number {
    return this.view.getFloat64(pos, true);
  }

  u32(pos: number): number {
    return this.view.getUint32(pos, true);
  }
}

const EMPTY = new Uint8Array(0);

/** Geometry field slots (feature.fbs). */
export const GEOMETRY_FIELD = { ends: 0, xy: 1, z: 2, parts: 7 } as const;
