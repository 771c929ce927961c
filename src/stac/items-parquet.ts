import {
  Binary,
  Field,
  makeData,
  makeVector,
  Int64,
  List,
  Struct,
  Table,
  TimestampMillisecond,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { CRS84_CRS } from "../geo/crs/crs.js";
import { encodeWkbColumn } from "../geo/wkb.js";
import { writeGeoParquet } from "../geoparquet/write.js";
import type { StacItem } from "./item.js";

const str = () => new Utf8();
const linkType = new Struct([
  new Field("rel", str(), false),
  new Field("href", str(), false),
  new Field("type", str(), true),
]);
const assetType = new Struct([
  new Field("href", str(), false),
  new Field("type", str(), false),
  new Field("title", str(), true),
  new Field("roles", new List(new Field("item", str(), false)), false),
  new Field("file:checksum", str(), false),
  new Field("file:size", new Int64(), false),
]);

/**
 * The Items as stac-geoparquet: one row per Item, STAC's top-level fields as columns, properties flattened to
 * columns (times as UTC timestamps, so DuckDB compares them as times), geometry as WKB with the bbox covering
 * column, written by our deterministic GeoParquet writer. The data asset's href is the artifact's location as
 * `urls` prints it, ready for read_parquet. Provenance stays in the JSON Items.
 */
export async function itemsParquet(items: StacItem[], locate: (key: string) => string): Promise<Uint8Array> {
  // Hrefs made absolute: the JSON Items' relative ones resolve from the Items, not from this file.
  const absolute = (i: StacItem, href: string) => new URL(href, i.links.find((l) => l.rel === "self")?.href).href;
  const prop = (i: StacItem, k: string) => i.properties[k] as string | number | null | undefined;
  const time = (k: string) =>
    vectorFromArray(
      items.map((i) => {
        const t = prop(i, k);
        return typeof t === "string" ? Date.parse(t) : null;
      }),
      new TimestampMillisecond("UTC"),
    );
  const strings = (f: (i: StacItem) => string) => vectorFromArray(items.map(f), str());
  const wkb = encodeWkbColumn(items.map((i) => i.geometry ?? { type: "GeometryCollection", geometries: [] }));
  const table = new Table({
    type: strings((i) => i.type),
    stac_version: strings((i) => i.stac_version),
    stac_extensions: vectorFromArray(
      items.map((i) => i.stac_extensions),
      new List(new Field("item", str(), false)),
    ),
    id: strings((i) => i.id),
    geometry: makeVector(
      makeData({ type: new Binary(), length: items.length, valueOffsets: wkb.offsets, data: wkb.data }),
    ),
    collection: strings((i) => i.collection),
    datetime: time("datetime"),
    start_datetime: time("start_datetime"),
    end_datetime: time("end_datetime"),
    "georefresh:region": strings((i) => prop(i, "georefresh:region") as string),
    "georefresh:logical_date": strings((i) => prop(i, "georefresh:logical_date") as string),
    "georefresh:key": strings((i) => prop(i, "georefresh:key") as string),
    "proj:code": strings((i) => prop(i, "proj:code") as string),
    "table:row_count": vectorFromArray(
      items.map((i) => BigInt(prop(i, "table:row_count") as number)),
      new Int64(),
    ),
    assets: vectorFromArray(
      items.map((i) => ({
        data: {
          ...i.assets.data,
          href: locate(i.properties["georefresh:artifact"] as string),
          "file:size": BigInt(i.assets.data?.["file:size"] as number),
        },
      })),
      new Struct([new Field("data", assetType, false)]),
    ),
    links: vectorFromArray(
      items.map((i) => i.links.map((l) => ({ rel: l.rel, href: absolute(i, l.href), type: l.type ?? null }))),
      new List(new Field("item", linkType, false)),
    ),
  });
  return (await writeGeoParquet(table, { crs: CRS84_CRS, idColumn: "id" })).bytes;
}
