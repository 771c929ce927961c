/** inByteOrder: a listing sorted by UTF-16 code units (Azurite) or by UTF-8 bytes comes out in UTF-8 byte order. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareKeys, inByteOrder } from "../../src/store/keys.js";

async function collect(keys: string[]): Promise<string[]> {
  async function* entries() {
    for (const key of keys) yield { key };
  }
  const out: string[] = [];
  for await (const e of inByteOrder(entries())) out.push(e.key);
  return out;
}

// The characters where the two orders part (U+E000–U+FFFF against those above U+FFFF), and plain ones.
const char = fc.constantFrom("a", "b", "/", "é", "\uE000", "\uFF21", "\uFFFD", "\u{1F5FA}", "\u{1F600}", "\u{20000}");
const keys = fc.uniqueArray(
  fc.array(char, { minLength: 1, maxLength: 5 }).map((cs) => cs.join("")),
  {
    maxLength: 40,
  },
);

describe("inByteOrder", () => {
  it("restores byte order from a UTF-16-ordered listing, and keeps a byte-ordered one", async () => {
    await fc.assert(
      fc.asyncProperty(keys, async (ks) => {
        const bytes = [...ks].sort(compareKeys);
        expect(await collect([...ks].sort())).toEqual(bytes);
        expect(await collect(bytes)).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it("holds back only keys with a character above U+FFFF, until the listing leaves their prefix", async () => {
    const seen: string[] = [];
    async function* entries() {
      for (const key of ["a", "b\u{1F600}", "b\uFFFD", "c"]) {
        seen.push(key);
        yield { key };
      }
    }
    const order: [string, number][] = [];
    for await (const e of inByteOrder(entries())) order.push([e.key, seen.length]);
    expect(order).toEqual([
      ["a", 1],
      ["b\uFFFD", 3],
      ["b\u{1F600}", 4],
      ["c", 4],
    ]);
  });
});
