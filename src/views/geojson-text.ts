/**
 * GeoJSON text for features whose properties may hold 64-bit integers (bigints): written as their exact digits,
 * as GDAL writes an Integer64 (JSON.stringify throws on a bigint, and Number() would round one past 2^53).
 */
export interface GeoJsonFeature {
  type: "Feature";
  /** A feature's id where it has one (serve: its partition and natural key). */
  id?: string;
  properties: Record<string, unknown>;
  geometry: unknown;
}

function valueText(v: unknown): string {
  return typeof v === "bigint" ? v.toString() : (JSON.stringify(v) ?? "null");
}

export function featureText(f: GeoJsonFeature): string {
  const props = Object.entries(f.properties)
    .map(([k, v]) => `${JSON.stringify(k)}:${valueText(v)}`)
    .join(",");
  const id = f.id === undefined ? "" : `"id":${valueText(f.id)},`;
  return `{"type":"Feature",${id}"properties":{${props}},"geometry":${JSON.stringify(f.geometry)}}`;
}

export function featureCollectionText(features: readonly GeoJsonFeature[]): string {
  return `{"type":"FeatureCollection","features":[${features.map(featureText).join(",")}]}`;
}
