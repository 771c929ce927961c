/** Maps `items` through `f` with at most `limit` calls in flight; results in input order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  f: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await f(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return out;
}
