import type { Table } from "apache-arrow";
import { decodeWkb } from "../geo/wkb.js";
import { CRS84_CRS, reproject } from "../geo/crs/crs.js";
import { rfc7946Winding } from "../geo/winding.js";
import type { Crs } from "../geo/crs/crs.js";
import type { GeoJsonFeature } from "./geojson-text.js";

/**
 * A table's rows as GeoJSON features; with `partition`, each also says its region and logical date (`region`,
 * `date`), unless the rows carry columns of those names, whose values then stay.
 */
export function featuresOf(
  table: Table,
  partition?: { region: string; date: string },
  crs: Crs = CRS84_CRS,
  keep: (row: number) => boolean = () => true,
): GeoJsonFeature[] {
  const props = table.schema.fields.map((f) => f.name).filter((n) => n !== "geometry" && n !== "bbox");
  const rows = Array.from({ length: table.numRows }, (_, i) => i).filter(keep);
  return rows.map((i) => ({
    type: "Feature" as const,
    properties: {
      ...(partition ?? {}),
      ...Object.fromEntries(props.map((p) => [p, jsonValue(table.getChild(p)?.get(i))])),
    },
    geometry: rfc7946Winding(reproject(decodeWkb(table.getChild("geometry")?.get(i) as Uint8Array, i), crs, CRS84_CRS)),
  }));
}

/** A value as GeoJSON holds it: a 64-bit integer a double holds exactly as a number, else kept whole (a bigint). */
function jsonValue(v: unknown): unknown {
  return typeof v === "bigint" && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(v)
    : v;
}
