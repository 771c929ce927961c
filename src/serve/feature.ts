import type { Table } from "apache-arrow";
import { crsFromCode } from "../geo/crs/crs.js";
import { featuresOf } from "../views/features.js";
import type { GeoJsonFeature } from "../views/geojson-text.js";
import type { DatasetView, ViewPartition } from "../views/reader.js";
import { HttpError } from "./request.js";

/**
 * The dataset's natural key, as its promotions record it (a task's `key`; a declarative source's `key`), or
 * undefined when it has none: then a feature has no stable id to be fetched by.
 */
export function naturalKey(view: DatasetView): string[] | undefined {
  for (const p of view.partitions) if ("changes" in p.entry && p.entry.changes) return p.entry.changes.key;
  return undefined;
}

/**
 * A feature's id, unique in the collection as OGC API – Features asks (QGIS keeps one feature per id): the
 * partition and the natural key, `<region>:<date>:<key>` (a composite key's values joined by ","). `/items/{id}`
 * takes it, or the bare key with ?region= and ?date= as before. Region names hold no ":" and dates are fixed,
 * so the key, after the second ":", may hold anything.
 */
export function withId(
  f: GeoJsonFeature,
  key: readonly string[] | undefined,
  partition: { region: string; date: string },
): GeoJsonFeature {
  if (!key?.length) return f;
  const values = key.map((k) => f.properties[k]);
  if (values.some((v) => v === null || v === undefined)) return f;
  return { ...f, id: `${partition.region}:${partition.date}:${values.map(String).join(",")}` };
}

/** An id in withId's form, split; undefined for a bare key. */
export function partitionOfId(id: string): { region: string; date: string; key: string } | undefined {
  const m = /^([A-Za-z0-9_.-]+):(\d{4}-\d{2}-\d{2}):([\s\S]*)$/.exec(id);
  return m ? { region: m[1] as string, date: m[2] as string, key: m[3] as string } : undefined;
}

/**
 * The one feature whose natural key is `id` (a composite key's values joined by ","), among `parts`. Several
 * partitions may hold the same key (one per region): then the client names the region, or the date.
 */
export async function featureById(
  read: (p: ViewPartition) => Promise<Table>,
  parts: readonly ViewPartition[],
  key: readonly string[],
  id: string,
  dataset: string,
): Promise<GeoJsonFeature> {
  const scoped = partitionOfId(id);
  const bare = scoped?.key ?? id;
  const values = key.length === 1 ? [bare] : bare.split(",");
  const found: GeoJsonFeature[] = [];
  const where: string[] = [];
  for (const p of parts) {
    if (scoped && (p.region !== scoped.region || p.date !== scoped.date)) continue;
    if (values.length !== key.length) break;
    const table = await read(p);
    const columns = key.map((k) => table.getChild(k));
    const match = (r: number) => columns.every((c, i) => c !== null && String(c.get(r)) === values[i]);
    const rows = featuresOf(table, { region: p.region, date: p.date }, crsFromCode(p.entry.crs), match).map((f) =>
      withId(f, key, p),
    );
    if (rows.length) where.push(`${p.region} ${p.date}`);
    found.push(...rows);
  }
  if (found.length === 1) return found[0] as GeoJsonFeature;
  if (found.length === 0)
    throw new HttpError(
      404,
      `${dataset} has no feature whose ${key.join(", ")} is ${values.join(", ")} in this view${key.length > 1 ? ` (a composite key: give its values joined by ",")` : ""}`,
    );
  throw new HttpError(
    400,
    `${key.join(", ")} = ${values.join(", ")} names ${found.length} features (${where.join("; ")}): add ?region= to say which`,
    "region",
  );
}
