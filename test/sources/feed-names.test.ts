/**
 * Names from a feed: column names that are Object.prototype's, that collide after case-folding or Unicode
 * normalisation, or that are the artifact's own columns; key values that are equal as values but not as text
 * (1 and "1", -0 and 0) or equal as text only after normalisation (NFC and NFD); region names that would be
 * paths or templates. Each is kept apart, or refused with what to do — never merged or dropped silently.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { readRows } from "../helpers/geojson-rows.js";
import { backfillSource, sourceConfig } from "../helpers/source-corpus.js";

let dir: string;
const point = { type: "Point", coordinates: [-104.8, 40.4] };
const NFC = "Caf\u00e9";
const NFD = "Cafe\u0301";

function feed(name: string, properties: Record<string, unknown>[], seq = false): string {
  const features = properties.map((p) => ({ type: "Feature", properties: p, geometry: point }));
  // JSON.stringify writes "__proto__" only as an own property: build the text so the key is in the file.
  const text = seq
    ? features.map((f) => JSON.stringify(f)).join("\n")
    : JSON.stringify({ type: "FeatureCollection", features });
  writeFileSync(join(dir, "weld", name), text);
  return `./{region}/${name}`;
}

/** An object with an own "__proto__" property, as JSON.parse makes it. */
const withProto = (rest: Record<string, unknown>) =>
  JSON.parse(`{"__proto__":"p",${JSON.stringify(rest).slice(1)}`) as Record<string, unknown>;

describe("names from a feed are kept apart or refused, never merged or dropped", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-feed-names-"));
    mkdirSync(join(dir, "weld"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("Object.prototype's names are columns like any other, in a collection and in a sequence", async () => {
    for (const [dataset, seq] of [
      ["proto", false],
      ["proto-seq", true],
    ] as const) {
      const url = feed(
        `${dataset}.json${seq ? "l" : ""}`,
        [withProto({ id: 1, constructor: "c", toString: "t", hasOwnProperty: "h" })],
        seq,
      );
      const r = await backfillSource(dir, dataset, { url, key: "id" });
      expect(r.code, r.out).toBe(0);
      const [row] = await readRows(dataset, join(dir, `${dataset}.config.json`), "weld");
      expect(Object.getOwnPropertyDescriptor(row?.properties, "__proto__")?.value, dataset).toBe("p");
      expect(row?.properties).toMatchObject({ id: 1, constructor: "c", toString: "t", hasOwnProperty: "h" });
    }
  });

  it("columns that differ only in case or Unicode form are refused, naming both", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        "case",
        { id: 1, Name: "a", name: "b" },
        /columns "Name" and "name" differ only in case, which DuckDB, SQLite and GeoPackage do not tell apart/,
      ],
      [
        "unicode",
        { id: 1, [NFC]: "a", [NFD]: "b" },
        /columns "Caf.{1,2}" and "Caf.{1,2}" differ only in Unicode form or case/,
      ],
    ];
    for (const [dataset, properties, message] of cases) {
      const r = await backfillSource(dir, dataset, { url: feed(`${dataset}.geojson`, [properties]) });
      expect(r.code, r.out).toBe(5);
      expect(r.out).toMatch(message);
      expect(r.out).toMatch(new RegExp(`${dataset}\\.geojson`));
      expect(r.published).toBe(false);
    }
  });

  it("a feed's own geometry or bbox column is refused with how to rename it, not dropped", async () => {
    for (const name of ["geometry", "bbox"]) {
      const r = await backfillSource(dir, `own-${name}`, {
        url: feed(`own-${name}.geojson`, [{ id: 1, [name]: "x" }]),
      });
      expect(r.code, r.out).toBe(5);
      expect(r.out).toMatch(
        new RegExp(
          `column "${name}" would be named "${name}".*rename it in "columns" \\(e\\.g\\. "${name}": "${name}_value"\\)`,
        ),
      );
      expect(r.published).toBe(false);
      const renamed = await backfillSource(dir, `own-${name}-renamed`, {
        url: `./{region}/own-${name}.geojson`,
        columns: { id: "id", [name]: `${name}_value` },
      });
      expect(renamed.code, renamed.out).toBe(0);
      const [row] = await readRows(`own-${name}-renamed`, join(dir, `own-${name}-renamed.config.json`), "weld");
      expect(row?.properties[`${name}_value`]).toBe("x");
    }
  });

  it("key values equal as values are one key (refused as a duplicate); NFC and NFD forms are two keys, kept apart", async () => {
    for (const [dataset, values, shown] of [
      ["key-types", ["1", 1], '"1"'],
      ["key-zero", [-0, 0], "0"],
      ["key-float", [1, 1.0], "1"],
    ] as const) {
      const url = feed(
        `${dataset}.geojson`,
        values.map((k) => ({ k })),
      );
      // -0 survives JSON.stringify as 0; write it as the feed would.
      if (dataset === "key-zero")
        writeFileSync(
          join(dir, "weld", `${dataset}.geojson`),
          JSON.stringify({ type: "FeatureCollection", features: [] }).replace(
            "[]",
            `[{"type":"Feature","properties":{"k":-0.0},"geometry":${JSON.stringify(point)}},{"type":"Feature","properties":{"k":0.0},"geometry":${JSON.stringify(point)}}]`,
          ),
        );
      const r = await backfillSource(dir, dataset, { url, key: "k" });
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(`duplicate key k = [${shown}] in rows 0 and 1`);
      expect(r.published).toBe(false);
    }
    const r = await backfillSource(dir, "key-nfd", {
      url: feed("key-nfd.geojson", [{ k: NFC }, { k: NFD }]),
      key: "k",
    });
    expect(r.code, r.out).toBe(0);
    const rows = await readRows("key-nfd", join(dir, "key-nfd.config.json"), "weld");
    expect(rows.map((x) => x.properties.k).sort()).toEqual([NFC, NFD].sort());
  });

  it("region names that are paths or templates are refused when the config loads (exit 2), before any key or url", async () => {
    for (const region of ["..", "../up", "a/b", "{date}", "x{region}", ".hidden"]) {
      const config = sourceConfig(dir, "regions", { url: "./{region}/key-nfd.geojson" });
      writeFileSync(
        config,
        JSON.stringify({
          store: "./data",
          datasets: {
            regions: { source: { url: "./{region}/key-nfd.geojson" }, regions: [region], cadence: "monthly" },
          },
        }),
      );
      const r = await runCliHere([
        "backfill",
        "--config",
        config,
        "--dataset",
        "regions",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-31",
      ]);
      expect(r.code, `${region}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(JSON.stringify(region));
    }
  });
});
