import { createHash } from "node:crypto";
import { sizeText } from "../sizes.js";
import type { Table } from "apache-arrow";
import type { RowsOf } from "./partition-rows.js";
import { crsFromCode } from "../geo/crs/crs.js";
import { featuresOf } from "../views/features.js";
import { featureText } from "../views/geojson-text.js";
import { withId } from "./feature.js";
import { HistoryTooShortError } from "../views/reader.js";
import type { Dataset, DatasetView, ViewPartition } from "../views/reader.js";
import { SnapshotError } from "../manifest/snapshot.js";
import { rowsInBbox } from "../views/rows-in-bbox.js";
import type { Bbox } from "../geo/bbox.js";
import { bboxBands, HttpError, unknownColumn } from "./request.js";
import type { ItemsQuery } from "./request.js";

/** The view a request reads: a committed snapshot, the dataset as of an instant, or as it is now. */
export async function viewFor(ds: Dataset, query: ItemsQuery): Promise<DatasetView> {
  try {
    if (query.snapshot) return await ds.snapshot(query.snapshot);
    return query.datetime && "at" in query.datetime ? await ds.asOf(query.datetime.at) : await ds.current();
  } catch (error) {
    // The dataset cannot answer what was asked (no such snapshot; history cut before the instant): the client's.
    if (error instanceof SnapshotError && /has no snapshot/.test(error.message))
      throw new HttpError(404, error.message, "snapshot");
    if (error instanceof HistoryTooShortError) throw new HttpError(400, error.message, "datetime");
    throw error;
  }
}

/**
 * The partitions an items request pages through, in (region, date) order: those of a logical-date interval (or
 * ?date=), or else each region's latest, as `urls --latest-date` lists them; with a bbox, only those whose box
 * meets it; with ?region=, only that region's.
 */
export function partitionsFor(view: DatasetView, query: ItemsQuery, onePerRegion = false): ViewPartition[] {
  const range = query.datetime && !("at" in query.datetime) ? query.datetime : undefined;
  // ?region= and ?date= pick partitions from the manifests: only those are read.
  const { region, date } = query.properties;
  // A box across the antimeridian picks partitions by its latitudes over all longitudes; rows by its two bands.
  const bands = query.bbox ? bboxBands(query.bbox) : [];
  const pick = bands.length === 2 ? ([-180, bands[0]?.[1], 180, bands[0]?.[3]] as Bbox) : query.bbox;
  const parts = view.select({
    ...(pick ? { bbox: pick } : {}),
    ...(range ?? {}),
    ...(region === undefined ? {} : { region }),
    // A map draws one partition per region: of an interval of dates, each region's latest in it.
    latest: (range === undefined || onePerRegion) && date === undefined,
  });
  return date === undefined ? parts : parts.filter((p) => p.date === date);
}

/**
 * A strong ETag of a page: a pure function of the artifacts it reads from (their sha256s) and the query, so a
 * page is known unchanged without reading a byte of it.
 */
export function pageTag(parts: readonly ViewPartition[], search: string): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(`${p.region}\0${p.date}\0${p.entry.sha256}\n`);
  return `"${h.update(search).digest("hex").slice(0, 32)}"`;
}

/**
 * One page of features (GeoJSON, lon/lat) from `query.cursor` on: partitions are read one at a time (whole, or
 * by row group: `rows`), only as many as the page needs, and the page ends with a "next" cursor (partition, row)
 * where rows remain. A page
 * reads at most `cap` bytes of artifacts: once the next partition would pass it, the page ends early (fewer
 * features, and a next link), so no request holds more than the cap however sparse its filter.
 */
export async function itemsPage(
  rows: RowsOf,
  parts: readonly ViewPartition[],
  query: ItemsQuery,
  url: URL,
  cap: number,
  key?: readonly string[],
): Promise<string> {
  const features: string[] = [];
  let next: string | undefined;
  let bytes = 0;
  const full = () => next !== undefined;
  for (let pi = query.cursor.partition, from = query.cursor.row; pi < parts.length && !full(); pi++, from = 0) {
    const p = parts[pi] as ViewPartition;
    if (bytes > 0 && bytes + p.entry.bytes > cap) {
      next = `${pi}.${from}`;
      break;
    }
    bytes += checkCap(p, cap);
    const origin = { region: p.region, date: p.date };
    for await (const chunk of rows(p, from, full)) {
      // Every chunk is taken, even past a full page: the partition's sha256 is checked after its last.
      if (full()) continue;
      const { table, firstRow } = chunk;
      const keep = filterOf(table, p, query);
      const chosen = new Set<number>();
      for (let r = Math.max(from - firstRow, 0); r < table.numRows; r++) {
        if (!keep(r)) continue;
        if (features.length + chosen.size === query.limit) {
          next = `${pi}.${firstRow + r}`;
          break;
        }
        chosen.add(r);
      }
      for (const f of featuresOf(table, origin, crsFromCode(p.entry.crs), (r) => chosen.has(r)))
        features.push(featureText(withId(f, key, origin)));
    }
    if (!full() && features.length === query.limit && pi + 1 < parts.length) next = `${pi + 1}.0`;
  }
  const link = (rel: string, cursor?: string) => {
    const u = new URL(url);
    if (cursor === undefined) u.searchParams.delete("next");
    else u.searchParams.set("next", cursor);
    return `{"href":${JSON.stringify(u.href)},"rel":"${rel}","type":"application/geo+json"}`;
  };
  const links = [link("self", url.searchParams.get("next") ?? undefined), ...(next ? [link("next", next)] : [])];
  // Without a row filter, the manifests say how many features match: a client counts without paging. ?region=
  // and ?date= only pick partitions, so they keep the count.
  const matched =
    query.bbox === undefined && Object.keys(query.properties).every((k) => k === "region" || k === "date")
      ? `"numberMatched":${parts.reduce((n, p) => n + p.entry.rows, 0)},`
      : "";
  return `{"type":"FeatureCollection",${matched}"numberReturned":${features.length},"links":[${links.join(",")}],"features":[${features.join(",")}]}\n`;
}

/** A partition's bytes, refused with what to do when one partition alone is more than a request may read. */
export function checkCap(p: ViewPartition, cap: number): number {
  if (p.entry.bytes > cap)
    throw new HttpError(
      400,
      `${p.region} ${p.date} is ${sizeText(p.entry.bytes)}, more than this server reads for one request (${sizeText(cap)}, serve --max-read): read it with DuckDB or GeoPandas (georefresh urls), or restart serve with a larger --max-read`,
    );
  return p.entry.bytes;
}

export { sizeText };

/** Which rows of a partition the query keeps: in the bbox (as `read --bbox`), and equal on each named column. */
function filterOf(table: Table, p: ViewPartition, query: ItemsQuery): (row: number) => boolean {
  const columns = table.schema.fields.map((f) => f.name).filter((n) => n !== "geometry" && n !== "bbox");
  const tests: ((row: number) => boolean)[] = [];
  if (query.bbox) {
    const inBands = bboxBands(query.bbox).map((b) => rowsInBbox(table, p.entry.crs, b));
    tests.push((r) => inBands.some((t) => t(r)));
  }
  for (const [name, wanted] of Object.entries(query.properties)) {
    if (name === "region" || name === "date") {
      const value = name === "region" ? p.region : p.date;
      tests.push(() => value === wanted);
      continue;
    }
    if (!columns.includes(name)) throw unknownColumn(name, ["region", "date", ...columns]);
    const column = table.getChild(name);
    tests.push((r) => {
      const v = column?.get(r);
      return v !== null && v !== undefined && String(v) === wanted;
    });
  }
  return (r) => tests.every((t) => t(r));
}
