import type { Table } from "apache-arrow";
import { bboxesIntersect, bboxFromLonLat } from "../geo/bbox.js";
import type { Bbox } from "../geo/bbox.js";
import { wkbSummary } from "../geo/wkb.js";

/**
 * Which rows of a partition meet a lon/lat box, as GeoPandas' `read_parquet(bbox=)` and `ogr2ogr -spat` choose
 * them: a row whose geometry's box touches the query box, compared in the storage CRS (the query box carried into
 * it, densified). Empty geometries meet nothing.
 */
export function rowsInBbox(table: Table, crs: string, lonLat: Bbox): (row: number) => boolean {
  const query = bboxFromLonLat(lonLat, crs);
  const geometry = table.getChild("geometry");
  const keep = new Uint8Array(table.numRows);
  for (let i = 0; i < table.numRows; i++) {
    const { bbox } = wkbSummary(geometry?.get(i) as Uint8Array, i);
    keep[i] = bbox[0] <= bbox[2] && bboxesIntersect(bbox as Bbox, query) ? 1 : 0;
  }
  return (row) => keep[row] === 1;
}
