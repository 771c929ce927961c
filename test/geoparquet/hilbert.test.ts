import { describe, expect, it } from "vitest";
import { hilbertIndex, hilbertOrder } from "../../src/geoparquet/hilbert.js";

describe("Hilbert order", () => {
  it("walks a corner block of the grid cell by cell: a permutation whose steps are all to a neighbour", () => {
    const side = 64;
    const cellAt = new Map<number, [number, number]>();
    for (let x = 0; x < side; x++) for (let y = 0; y < side; y++) cellAt.set(hilbertIndex(x, y), [x, y]);
    expect([...cellAt.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: side * side }, (_, i) => i));
    for (let i = 1; i < side * side; i++) {
      const [x0, y0] = cellAt.get(i - 1) as [number, number];
      const [x1, y1] = cellAt.get(i) as [number, number];
      expect(Math.abs(x0 - x1) + Math.abs(y0 - y1)).toBe(1);
    }
    expect(hilbertIndex(65535, 0)).toBe(2 ** 32 - 1);
  });

  it("orders rows by bbox centre, empties last, ties by the id comparator", () => {
    const boxes = Float64Array.from([10, 10, 10, 10, NaN, NaN, NaN, NaN, 0, 0, 0, 0, 10, 10, 10, 10, 0, 0, 0, 0]);
    const ids = [5, 1, 9, 2, 7];
    const order = [...hilbertOrder(boxes, (a, b) => (ids[a] as number) - (ids[b] as number))];
    expect(order.at(-1)).toBe(1);
    const firstPair = order.slice(0, 2).map((r) => ids[r]);
    const secondPair = order.slice(2, 4).map((r) => ids[r]);
    expect([firstPair, secondPair].every((p) => (p[0] as number) < (p[1] as number))).toBe(true);
  });
});
