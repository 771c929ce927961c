/**
 * How many features of a compute's output were curves read as straight segments (geo/curves.ts): set by a source's
 * reader on the batches and table it yields, carried into the artifact's footer and the run's outcome, so that a
 * reader of either knows the arcs were made lines. Kept beside the objects, never in them, as row-origins.ts does.
 */
const LINEARIZED = new WeakMap<object, number>();

export function setLinearized(rows: object, features: number): void {
  if (features > 0) LINEARIZED.set(rows, features);
}

export function linearizedOf(rows: object): number {
  return LINEARIZED.get(rows) ?? 0;
}
