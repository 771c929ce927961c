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
  const values = key.length === 1 ? [id] : id.split(",");
  const found: GeoJsonFeature[] = [];
  const where: string[] = [];
  for (const p of parts) {
    if (values.length !== key.length) break;
    const table = await read(p);
    const columns = key.map((k) => table.getChild(k));
    const match = (r: number) => columns.every((c, i) => c !== null && String(c.get(r)) === values[i]);
    const rows = featuresOf(table, { region: p.region, date: p.date }, crsFromCode(p.entry.crs), match);
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
