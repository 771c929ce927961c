import type { Crs } from "../geo/crs.js";
import { crsFromGeoParquet } from "../geo/crs.js";
import { wkbEqualAreaArea } from "../geo/area.js";
import type { GeometryValidator } from "../geo/validity.js";
import { binaryColumn } from "../geoparquet/columns.js";
import { readGeoParquet } from "../geoparquet/read.js";
import { sha256Hex } from "../store/digest.js";

/** What a written artifact really holds, read back from its bytes. */
export interface ArtifactFacts {
  sha256: string;
  bytes: number;
  rows: number;
  bbox: [number, number, number, number] | null;
  crs: string;
  geometryTypes: string[];
  columns: { name: string; type: string }[];
  areaM2: number;
  problems: string[];
}

/**
 * Reads an artifact back and checks it: the CRS is the storage CRS, every geometry decodes and is valid (GEOS),
 * finite and inside the CRS domain; the footer's geometry_types and bbox match the rows. Returns the facts the
 * manifest records, with every problem found (empty when the artifact may be published).
 */
export async function inspectArtifact(
  bytes: Uint8Array,
  where: string,
  storageCrs: Crs,
  validator: GeometryValidator,
): Promise<ArtifactFacts> {
  const { table, geo } = await readGeoParquet(bytes, where);
  const problems: string[] = [];
  const column = geo.columns[geo.primary_column] ?? { encoding: "WKB", geometry_types: [] };
  let crs: Crs | undefined;
  try {
    crs = crsFromGeoParquet(column, where);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (crs && crs.id !== storageCrs.id) problems.push(`CRS is ${crs.id}, expected the storage CRS ${storageCrs.id}`);
  const vector = table.getChild(geo.primary_column);
  if (!vector) throw new Error(`${where}: primary column '${geo.primary_column}' missing`);
  const wkb = binaryColumn(vector, geo.primary_column);
  const issues = await validator.validate(wkb.data, wkb.offsets, storageCrs);
  for (const issue of issues.slice(0, 10)) problems.push(`row ${issue.row}: ${issue.reason.replace(/^row \d+: /, "")}`);
  if (issues.length > 10) problems.push(`… ${issues.length - 10} more invalid geometries`);
  let areaM2 = 0;
  const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  if (issues.length === 0) {
    for (let i = 0; i < table.numRows; i++)
      areaM2 += wkbEqualAreaArea(wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]), storageCrs, i);
  }
  const declared = column.bbox as number[] | undefined;
  const covering = table.getChild("bbox");
  for (let i = 0; i < table.numRows; i++) {
    const b = covering?.get(i);
    if (!b) continue;
    bbox[0] = Math.min(bbox[0], b.xmin);
    bbox[1] = Math.min(bbox[1], b.ymin);
    bbox[2] = Math.max(bbox[2], b.xmax);
    bbox[3] = Math.max(bbox[3], b.ymax);
  }
  const dataBox = bbox[0] <= bbox[2] ? bbox : null;
  if (JSON.stringify(declared ?? null) !== JSON.stringify(dataBox))
    problems.push(`footer bbox ${JSON.stringify(declared)} differs from the rows' ${JSON.stringify(dataBox)}`);
  return {
    sha256: sha256Hex(bytes),
    bytes: bytes.byteLength,
    rows: table.numRows,
    bbox: dataBox,
    crs: storageCrs.id,
    geometryTypes: column.geometry_types,
    columns: table.schema.fields.map((f) => ({ name: f.name, type: String(f.type) })),
    areaM2,
    problems,
  };
}
