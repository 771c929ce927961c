/**
 * A real artifact of a keyed task into PostGIS: each row's content digest is the one its changelog records, and
 * the geometries arrive valid, with the storage CRS's SRID and the artifact's exact coordinates (WKB for WKB).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import { readManifest } from "../../src/manifest/codec.js";
import { manifestKey } from "../../src/manifest/layout.js";
import type { ManifestEntry } from "../../src/manifest/types.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { partitionBatch } from "../../src/sinks/partition-rows.js";
import { Loader } from "../../src/sinks/loader.js";
import { postgisSink } from "../../src/sinks/postgis/database.js";
import { PostgisDialect } from "../../src/sinks/postgis/dialect.js";
import { STATE_TABLE } from "../../src/sinks/sink-table.js";
import { tableStatements } from "../../src/sinks/postgis/table.js";
import { quoteIdent } from "../../src/sinks/sql-names.js";
import { MemoryStore } from "../../src/store/memory.js";
import { parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";

describe("an artifact's rows in PostGIS", () => {
  let dir: string;
  let client: pg.Client;
  const schema = `rows_${process.pid}`;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-sink-rows-"));
    client = new pg.Client({ connectionString: inject("postgres") as string });
    await client.connect();
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await client.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it("carries the changelog's digests and the artifact's exact geometries", async () => {
    const store = new MemoryStore(`sink-rows-${process.pid}`);
    const partition = { dataset: "parcels", region: "weld", date: "2026-03-01" };
    writeFeed(dir, "weld", partition.date, parcels(60));
    expect((await refreshPartition({ store, task: parcelsTask(dir), partition, versions: {} })).outcome).toBe(
      "promoted",
    );
    const entry = (await readManifest(store, manifestKey(partition)))?.manifest.current as ManifestEntry;
    const { table } = await readGeoParquet((await store.get(entry.artifact)).body, entry.artifact);
    const data = ["parcel_id", "zoning", "owner"];
    const batch = await partitionBatch(table, ["parcel_id"], data);
    const rows = Array.from({ length: batch.length }, (_, i) => batch.row(i));

    const log = (await store.get(entry.changes?.changelog as string)).body;
    const recorded = (await parquetReadObjects({
      file: log.buffer.slice(log.byteOffset, log.byteOffset + log.byteLength) as ArrayBuffer,
      compressors,
    })) as { parcel_id: string; after_digest: string }[];
    const digestOf = new Map(recorded.map((r) => [r.parcel_id, r.after_digest]));
    expect(rows).toHaveLength(60);
    for (const r of rows) expect(r[4], String(r[0])).toBe(digestOf.get(r[0] as string));

    const type = (name: string) => entry.columns.find((c) => c.name === name)?.type as string;
    for (const sql of tableStatements({
      schema,
      table: "parcels",
      key: ["parcel_id"],
      columns: entry.columns,
      crs: entry.crs,
      hasZ: false,
    }))
      await client.query(sql);
    await client.query("BEGIN");
    const db = new PostgisDialect(client, schema, "parcels", `${quoteIdent(schema)}.${STATE_TABLE}`);
    const shape = {
      dataset: "parcels",
      key: ["parcel_id"],
      columns: data.map((name) => ({ name, type: type(name) })),
      crs: entry.crs,
      hasZ: false,
    };
    const counts = await new Loader(db, postgisSink.capabilities, "run-1", false).apply(
      shape,
      { region: "weld", date: partition.date, artifactKey: entry.artifact, sha256: entry.sha256, rows: rows.length },
      (async function* () {
        yield batch;
      })(),
    );
    await client.query("COMMIT");
    expect(counts).toEqual({ inserted: 60, updated: 0, unchanged: 0, retired: 0, deleted: 0 });
    const check = (
      await client.query(
        `SELECT count(*) FILTER (WHERE ST_IsValid(geom))::int AS valid, count(DISTINCT ST_SRID(geom))::int AS srids, min(ST_SRID(geom)) AS srid
           FROM ${quoteIdent(schema)}.parcels`,
      )
    ).rows[0];
    expect(check).toEqual({ valid: 60, srids: 1, srid: 4326 });
    // The digests COPY wrote (hex straight from the digests) are the changelog's too.
    const written = await client.query(`SELECT parcel_id, content_digest FROM ${quoteIdent(schema)}.parcels`);
    expect(written.rows).toHaveLength(60);
    for (const r of written.rows) expect(r.content_digest, r.parcel_id).toBe(digestOf.get(r.parcel_id));
    const stored = await client.query(
      `SELECT parcel_id, ST_AsBinary(geom, 'NDR') AS wkb FROM ${quoteIdent(schema)}.parcels`,
    );
    const wkbOf = new Map(rows.map((r: unknown[]) => [r[0] as string, Buffer.from(r[3] as Uint8Array)]));
    for (const r of stored.rows)
      expect((r.wkb as Buffer).equals(wkbOf.get(r.parcel_id) as Buffer), r.parcel_id).toBe(true);
  });
});
