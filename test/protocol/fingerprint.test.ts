import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, fingerprint } from "../../src/protocol/fingerprint.js";
import type { FingerprintInput } from "../../src/protocol/fingerprint.js";
import { logicalDates } from "../../src/calendar/calendar.js";
import { resolvePins } from "../../src/calendar/pins.js";

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
const date = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const input: fc.Arbitrary<FingerprintInput> = fc.record({
  task: fc.record({ name, version: fc.stringMatching(/^[0-9]{1,3}$/) }),
  partition: fc.record({ dataset: name, region: name, date }),
  params: fc.dictionary(
    name,
    fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  ),
  inputs: fc.dictionary(name, fc.stringMatching(/^sha256:[0-9a-f]{8}$/), { minKeys: 1 }),
  pins: fc.dictionary(name, fc.string({ minLength: 1 })),
  writer: fc.record({
    id: fc.constant("w"),
    format: fc.constant("geoparquet-1.1.0"),
    storageCrs: fc.constant("OGC:CRS84"),
  }),
});

/** The same object with its keys inserted in reverse order at every depth. */
function reorder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reorder);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reorder(x)]),
    );
  return v;
}

describe("fingerprint", () => {
  it("is 16 hex characters and ignores key order", () => {
    fc.assert(
      fc.property(input, (i) => {
        const k = fingerprint(i);
        expect(k).toMatch(/^[0-9a-f]{16}$/);
        expect(fingerprint(reorder(i) as FingerprintInput)).toBe(k);
      }),
    );
  });

  it("changes when any input identity, pin, param, partition or version changes", () => {
    fc.assert(
      fc.property(input, fc.string({ minLength: 1 }), (i, extra) => {
        const k = fingerprint(i);
        const inputName = Object.keys(i.inputs)[0] as string;
        const variants: FingerprintInput[] = [
          { ...i, inputs: { ...i.inputs, [inputName]: `${i.inputs[inputName]}x` } },
          { ...i, pins: { ...i.pins, zz_new_pin: extra } },
          { ...i, params: { ...i.params, zz_new_param: extra } },
          { ...i, partition: { ...i.partition, region: `${i.partition.region}x` } },
          {
            ...i,
            partition: { ...i.partition, date: i.partition.date === "2000-01-01" ? "2000-01-02" : "2000-01-01" },
          },
          { ...i, task: { ...i.task, version: `${i.task.version}1` } },
          { ...i, writer: { ...i.writer, id: "w2" } },
        ];
        for (const v of variants) expect(fingerprint(v)).not.toBe(k);
      }),
    );
  });

  it("normalises numbers and refuses what JSON cannot carry", () => {
    expect(canonicalJson({ b: 1.0, a: -0 })).toBe('{"a":0,"b":1}');
    expect(canonicalJson({ a: 1, skip: undefined })).toBe('{"a":1}');
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/cannot fingerprint the number NaN/);
    expect(() => canonicalJson({ a: 1n })).toThrow(/bigint/);
  });

  it("never depends on the clock, the process or the host", () => {
    const i: FingerprintInput = {
      task: { name: "t", version: "1" },
      partition: { dataset: "d", region: "r", date: "2026-01-01" },
      params: {},
      inputs: { a: "sha256:00" },
      pins: {},
      writer: { id: "w", format: "geoparquet-1.1.0", storageCrs: "OGC:CRS84" },
    };
    // A golden value: the same inputs must give this key on every machine, in every time zone, in ten years.
    // Changing it silently rebuilds every artifact of every user: only with a deliberate format change.
    expect(fingerprint(i)).toBe("cd6ee5efff7436d7");
  });
});

describe("pins and calendar", () => {
  const versions = {
    model: [
      { from: "2026-03-01", value: "v2" },
      { from: "2026-01-01", value: "v1" },
    ],
  };
  it("resolves a date to the value in force on it, never a later one", () => {
    fc.assert(
      fc.property(
        date.filter((d) => d >= "2026-01-01"),
        (d) => {
          expect(resolvePins(versions, ["model"], d).model).toBe(d < "2026-03-01" ? "v1" : "v2");
        },
      ),
    );
    expect(() => resolvePins(versions, ["model"], "2025-12-31")).toThrow(
      /no value on 2025-12-31 \(its first entry is from 2026-01-01\)/,
    );
    expect(() => resolvePins(versions, ["other"], "2026-01-01")).toThrow(/pin 'other' is not in the versions file/);
  });

  it("lists daily and monthly logical dates from the calendar alone", () => {
    expect(logicalDates("2026-02-27", "2026-03-02", "daily")).toEqual([
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
    expect(logicalDates("2026-01-15", "2026-04-01", "monthly")).toEqual(["2026-02-01", "2026-03-01", "2026-04-01"]);
    expect(logicalDates("2024-01-01", "2024-12-31", "daily")).toHaveLength(366);
  });
});
