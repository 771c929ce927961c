import { describe, expect, it } from "vitest";
import { parseAge } from "../../src/gc/gc.js";
import { describeGc } from "./gc.js";

describeGc("fs");

describe("parseAge", () => {
  it("reads s, m, h, d and refuses anything else", () => {
    expect(parseAge("24h")).toBe(86_400_000);
    expect(parseAge("90m")).toBe(5_400_000);
    expect(() => parseAge("soon")).toThrow(/expected a number with s, m, h or d/);
  });
});
