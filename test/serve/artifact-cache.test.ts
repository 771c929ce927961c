/** The server's cache of decoded artifacts: made once per sha256, bounded by bytes (least recently used out). */
import { describe, expect, it } from "vitest";
import { ArtifactCache } from "../../src/serve/artifact-cache.js";

const entry = (n: number, bytes = 100) => ({ sha256: `sha-${n}`, bytes });

describe("ArtifactCache", () => {
  it("makes a value once per artifact and kind, and keeps within its budget, least recently used out", async () => {
    const cache = new ArtifactCache(300);
    let made = 0;
    const make = (v: string) => () => {
      made++;
      return Promise.resolve(v);
    };
    expect(await cache.get("table", entry(1), make("a"))).toBe("a");
    expect(await cache.get("table", entry(1), make("x"))).toBe("a"); // kept: not made again
    expect(await cache.get("tiles", entry(1), make("b"))).toBe("b"); // another kind of the same artifact
    expect(made).toBe(2);
    await cache.get("table", entry(2), make("c")); // 300 bytes held
    await cache.get("table", entry(1), make("x")); // touch: now the most recent
    await cache.get("table", entry(3), make("d")); // 400 > 300: the least recently used (tiles 1) goes
    expect(made).toBe(4);
    expect(await cache.get("table", entry(1), make("x"))).toBe("a");
    expect(await cache.get("tiles", entry(1), make("b2"))).toBe("b2");
    expect(made).toBe(5);
  });

  it("keeps no failure, and no value larger than the whole budget", async () => {
    const cache = new ArtifactCache(300);
    await expect(cache.get("table", entry(1), () => Promise.reject(new Error("unreachable store")))).rejects.toThrow(
      "unreachable store",
    );
    expect(await cache.get("table", entry(1), () => Promise.resolve("now read"))).toBe("now read");
    let made = 0;
    const big = () => {
      made++;
      return Promise.resolve("big");
    };
    await cache.get("table", entry(9, 1000), big);
    await cache.get("table", entry(9, 1000), big);
    expect(made).toBe(2);
  });
});
