/**
 * The footer codec (thrift.ts) on hand-made input: every wire type survives decode → encode byte for byte, and a
 * hostile footer (truncated, nested too deep, a list longer than the bytes) is refused with a ThriftError.
 */
import { describe, expect, it } from "vitest";
import { decodeStruct, encodeStruct, field, list, struct, T, ThriftError } from "../../src/geoparquet/thrift.js";

const bytes = (...b: number[]) => Uint8Array.from(b);

describe("Thrift compact codec", () => {
  it("keeps i16 apart from i32, a boolean list's bytes, an empty list's element type and long field-id jumps", () => {
    const s = struct(
      { id: 1, type: T.I16, value: -3 },
      { id: 2, type: T.I32, value: 70000 },
      { id: 3, type: T.I64, value: -(2n ** 40n) },
      { id: 4, type: T.DOUBLE, value: 0.1 },
      { id: 5, type: T.BINARY, value: bytes(1, 2, 3) },
      { id: 6, type: T.LIST, value: { elementType: T.FALSE, items: [true, false], boolBytes: [1, 0] } },
      { id: 7, type: T.LIST, value: list(T.I32, []) },
      { id: 40, type: T.TRUE, value: true },
      {
        id: 41,
        type: T.STRUCT,
        value: struct({
          id: 1,
          type: T.LIST,
          value: list(
            T.I64,
            Array.from({ length: 20 }, (_, i) => BigInt(i)),
          ),
        }),
      },
    );
    const encoded = encodeStruct(s);
    const { struct: back, end } = decodeStruct(encoded);
    expect(end).toBe(encoded.byteLength);
    expect(Buffer.compare(encodeStruct(back), encoded)).toBe(0);
    expect(back.fields.map((f) => [f.id, f.type])).toEqual(s.fields.map((f) => [f.id, f.type]));
    expect(field(back, 3)).toBe(-(2n ** 40n));
    expect(field(back, 4)).toBe(0.1);
    expect((field(back, 6) as { boolBytes: number[] }).boolBytes).toEqual([1, 0]); // a writer's false byte kept
  });

  it("refuses truncated input, nesting past 64 levels and a list longer than its bytes", () => {
    const good = encodeStruct(struct({ id: 1, type: T.BINARY, value: bytes(9, 9, 9, 9) }));
    expect(() => decodeStruct(good.subarray(0, good.byteLength - 2))).toThrow(ThriftError);
    let deep = struct({ id: 1, type: T.I32, value: 1 });
    for (let i = 0; i < 70; i++) deep = struct({ id: 1, type: T.STRUCT, value: deep });
    expect(() => decodeStruct(encodeStruct(deep))).toThrow(/nest deeper than 64 levels/);
    // field 1, list of 0x7fffffff i32s, in 6 bytes
    expect(() => decodeStruct(bytes(0x19, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x07, 0))).toThrow(/cannot fit in the footer/);
    expect(() => decodeStruct(bytes(0x1b, 0))).toThrow(/unsupported Thrift type 11/); // a map
  });
});
