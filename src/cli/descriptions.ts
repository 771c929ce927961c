/**
 * Every command's one-line description: its module registers it with this text, and `--help` lists it without
 * loading the module.
 */
export const DESCRIPTIONS = {
  doctor: "prove that a store honours conditional writes (create-if-absent and compare-and-swap) on a scratch key",
  backfill: "refresh every region × logical date of a dataset between two dates, safely re-runnable",
  run: "refresh one partition (dataset, region, logical date)",
  finalize: "after all shards of a backfill: check that every planned partition is current, then retire regions",
  ls: "list a dataset's partitions: status (current, rekeyed, retired), rows, key, when their data last changed",
  show: "show the manifest entry a partition's readers follow",
  urls: "artifact locations of current partitions, ready for DuckDB's read_parquet([...])",
  read: "read a partition's artifact (sha256-verified) as GeoJSON, NDJSON or Parquet; or, with --bbox/--from/--to, the selected partitions' rows (with --bbox, only the rows meeting the box)",
  changes:
    "row-level change of a keyed dataset's region: keys added, removed, geometry or attributes changed, between two dates or at one",
  sink: "apply a dataset's snapshot to a PostGIS table or a GeoPackage in one transaction: unchanged rows untouched, changed ones updated, gone ones retired",
  serve:
    "serve the store's datasets read-only as OGC API – Features and vector tiles, with a map page, for GDAL, QGIS and browsers",
  stac: "write the dataset's static STAC catalog (Collection, Items, stac-geoparquet) into the store",
  report: "write a self-contained HTML report of a dataset: status grid, trends, map",
  deliver: "send pending outbox events (one per promoted change) to a webhook, with Idempotency-Key and HMAC signature",
  gc: "remove leftovers readers never see: temp objects, stale outbox events, stale multipart uploads, and this machine's TMPDIR files of killed runs (dry run unless --apply)",
  validate:
    "check GeoParquet 1.0, 1.1 and 2.0 files on every row: metadata rules, WKB or GeoArrow, OGC validity (GEOS), finite coordinates, CRS domain, native statistics, best practice",
  verify: "run a partition twice into scratch stores and prove byte-identical artifacts and an unchanged manifest",
} as const;
