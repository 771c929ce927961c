/**
 * Where each row of a compute's output came from, as the file it was read from counts its features (OGR's FID: a
 * Shapefile's record from 0, a GeoPackage's fid, a CSV's record from 1): set by a source's reader on the Arrow
 * batches and table it yields, read when a check refuses a row, so the refusal names the feature a user can open
 * in QGIS or ogrinfo, not the artifact's row (which is in spatial order). Kept beside the objects, never in them:
 * the artifact's bytes do not change.
 */
const ORIGINS = new WeakMap<object, Float64Array>();

export function setRowOrigins(rows: object, fids: Float64Array): void {
  ORIGINS.set(rows, fids);
}

export function rowOrigins(rows: object): Float64Array | undefined {
  return ORIGINS.get(rows);
}
