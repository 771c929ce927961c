/**
 * compute may return Arrow (a table, record batches, or batches yielded over time) with a WKB geometry column:
 * it must give the very bytes the equivalent features give, reprojected or not, whatever WKB dialect the task
 * writes; and output that cannot become an artifact is refused as `invalid` with nothing published.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Binary, Float64, Int32, makeData, makeVector, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Geometry } from "../../src/geo/geometry.js";
import type { Feature } from "../../src/geoparquet/features.js";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import type { ComputeOutput } from "../../src/task/compute-output.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import type { RefreshResult } from "../../src/protocol/refresh.js";
import { defineTask } from "../../src/task/task.js";
import { FsStore } from "../../src/store/fs.js";
import { ewkbBigEndian } from "../helpers/foreign-wkb.js";
import { published, snapshot } from "../helpers/snapshot.js";

/** 300 small squares in Conus Albers metres (EPSG:5070), with an id, a name and a score. */
function rows(): { id: number; name: string; score: number; geometry: Geometry }[] {
  return Array.from({ length: 300 }, (_, i) => {
    const x = -2_000_000 + (i % 30) * 40_000;
    const y = 1_000_000 + Math.floor(i / 30) * 40_000;
    return {
      id: i,
      name: `site-${i % 17}`,
      score: i / 7,
      geometry: {
        type: "Polygon",
        coordinates: [
          [
            [x, y],
            [x + 900, y],
            [x + 900, y + 900],
            [x, y + 900],
            [x, y],
          ],
        ],
      },
    };
  });
}

function binary(values: Uint8Array[]) {
  const offsets = new Int32Array(values.length + 1);
  values.forEach((v, i) => (offsets[i + 1] = (offsets[i] as number) + v.byteLength));
  const data = new Uint8Array(offsets[values.length] as number);
  values.forEach((v, i) => data.set(v, offsets[i] as number));
  return makeVector(makeData({ type: new Binary(), length: values.length, valueOffsets: offsets, data }));
}

/** The same rows as Arrow, with big-endian EWKB carrying an SRID: another tool's dialect, not ours. */
function arrowRows(): Table {
  const r = rows();
  return new Table({
    id: makeVector(Int32Array.from(r.map((x) => x.id))),
    name: vectorFromArray(
      r.map((x) => x.name),
      new Utf8(),
    ),
    score: vectorFromArray(
      r.map((x) => x.score),
      new Float64(),
    ),
    geometry: binary(r.map((x) => ewkbBigEndian(x.geometry, 5070))),
  });
}

const COLUMNS = [
  { name: "id", type: "int32" as const },
  { name: "name", type: "string" as const },
  { name: "score", type: "float64" as const },
];

function task(name: string, crs: string, compute: () => ComputeOutput) {
  return defineTask({
    name,
    version: "1",
    cadence: "daily",
    regions: ["r"],
    inputs: () => ({}),
    crs,
    idColumn: "id",
    columns: COLUMNS,
    compute,
  });
}

describe("compute returning Arrow", () => {
  let dir: string;
  let store: FsStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-arrow-"));
    store = new FsStore(join(dir, "store"));
    writeFileSync(join(dir, "unused"), "");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  const run = (t: ReturnType<typeof task>): Promise<RefreshResult> =>
    refreshPartition({
      store,
      task: t,
      partition: { dataset: `d${n++}`, region: "r", date: "2026-01-01" },
      versions: {},
    });
  const features = (): Feature[] => rows().map(({ geometry, ...properties }) => ({ geometry, properties }));

  for (const crs of ["EPSG:5070", "OGC:CRS84"]) {
    it(`gives the same artifact bytes as the equivalent features (${crs === "OGC:CRS84" ? "no reprojection" : "reprojected to CRS84"})`, async () => {
      // In CRS84 the task's own coordinates are taken as lon/lat: squares moved into range, still the same rows.
      const shift = (g: Geometry): Geometry =>
        crs === "OGC:CRS84"
          ? (JSON.parse(JSON.stringify(g), (_k, v) => (typeof v === "number" ? v / 1e5 : v)) as Geometry)
          : g;
      const viaFeatures = await run(
        task("squares", crs, async () => features().map((f) => ({ ...f, geometry: shift(f.geometry) }))),
      );
      expect(viaFeatures.outcome, viaFeatures.message).toBe("promoted");
      const table = arrowRows();
      const shifted =
        crs === "OGC:CRS84"
          ? new Table({
              ...Object.fromEntries(["id", "name", "score"].map((c) => [c, table.getChild(c)])),
              geometry: binary(rows().map((x) => ewkbBigEndian(shift(x.geometry), 4326))),
            })
          : table;
      const viaTable = await run(task("squares", crs, async () => shifted));
      expect(viaTable.outcome, viaTable.message).toBe("promoted");
      expect(viaTable.sha256).toBe(viaFeatures.sha256);
      // Yielded in pieces: slices of the table and a bare record batch.
      const pieces = async function* () {
        yield shifted.slice(0, 100);
        yield shifted.slice(100, 250);
        yield* shifted.slice(250).batches;
      };
      const viaBatches = await run(task("squares", crs, pieces));
      expect(viaBatches.outcome, viaBatches.message).toBe("promoted");
      expect(viaBatches.sha256).toBe(viaFeatures.sha256);
      // A slice of a table (Arrow JS keeps its buffers and records an offset): the rows of the slice, no others.
      const tail = await run(
        task("squares", crs, async () =>
          features()
            .slice(120)
            .map((f) => ({ ...f, geometry: shift(f.geometry) })),
        ),
      );
      const viaSlice = await run(task("squares", crs, async () => shifted.slice(120)));
      expect(viaSlice.rows).toBe(180);
      expect(viaSlice.sha256).toBe(tail.sha256);
      // An artifact read back as Arrow and returned as it is (the README's pass-through task) is written again
      // byte for byte: same rows, same columns, same order.
      const artifact = (
        await store.get(
          `artifacts/${viaFeatures.partition.dataset}/region=r/date=2026-01-01/${viaFeatures.key}.parquet`,
        )
      ).body;
      const passThrough = await run(
        task("squares", "OGC:CRS84", async () => (await readGeoParquet(artifact, "artifact")).table),
      );
      expect(passThrough.outcome, passThrough.message).toBe("promoted");
      expect(passThrough.sha256).toBe(viaFeatures.sha256);
    });
  }

  it("refuses output that cannot become an artifact, names the problem, and publishes nothing", async () => {
    const good = arrowRows();
    const without = (drop: string) =>
      new Table(
        Object.fromEntries(
          good.schema.fields.filter((f) => f.name !== drop).map((f) => [f.name, good.getChild(f.name)]),
        ) as never,
      );
    const withGeometry = (geometry: ReturnType<typeof binary>) =>
      new Table({
        id: good.getChild("id"),
        name: good.getChild("name"),
        score: good.getChild("score"),
        geometry,
      } as never);
    const broken = rows().map((x) => ewkbBigEndian(x.geometry, 5070));
    broken[42] = (broken[42] as Uint8Array).subarray(0, 30);
    const nulls = makeVector(
      makeData({
        ...good.getChild("geometry")!.data[0]!,
        nullCount: 1,
        nullBitmap: Uint8Array.from({ length: 38 }, (_, i) => (i === 0 ? 0xfe : 0xff)),
      } as never),
    );
    const cases: [string, () => ComputeOutput, RegExp][] = [
      ["no geometry column", async () => without("geometry"), /has no 'geometry' column of WKB/],
      [
        "geometry is not binary",
        async () =>
          new Table({
            ...Object.fromEntries(["id", "name", "score"].map((c) => [c, good.getChild(c)])),
            geometry: vectorFromArray(
              rows().map(() => "POINT (1 2)"),
              new Utf8(),
            ),
          } as never),
        /'geometry' is Utf8, not a WKB binary column/,
      ],
      ["a null geometry", async () => withGeometry(nulls as never), /1 null values; write an empty geometry/],
      [
        "truncated WKB",
        async () => withGeometry(binary(broken)),
        /bad geometry column: row 42: invalid WKB at byte \d+: truncated/,
      ],
      ["a declared column missing", async () => without("score"), /no column 'score', which the task declares/],
      [
        "a declared column of another type",
        async () =>
          new Table({
            id: vectorFromArray(
              rows().map((x) => x.id),
              new Float64(),
            ),
            name: good.getChild("name"),
            score: good.getChild("score"),
            geometry: good.getChild("geometry"),
          } as never),
        /column 'id' is Float64 in compute's Arrow output, but the task declares int32/,
      ],
      [
        "features and Arrow mixed",
        () =>
          (async function* () {
            yield features().slice(0, 3);
            yield good;
          })(),
        /both features and Arrow batches/,
      ],
      [
        "batches with different schemas",
        () =>
          (async function* () {
            yield good.slice(0, 10);
            yield without("score");
          })(),
        /batch 1 has columns .* but batch 0 has/,
      ],
      ["neither", async () => ({ rows: 3 }) as never, /neither an array of features nor an Arrow table/],
    ];
    for (const [label, compute, message] of cases) {
      const before = await snapshot(store);
      const r = await run(task("bad", "EPSG:5070", compute));
      expect(r.outcome, label).toBe("invalid");
      expect(r.message, label).toMatch(message);
      expect(r.message, label).toMatch(/nothing was published/);
      expect(published(await snapshot(store)), label).toEqual(published(before));
    }
  });
});
