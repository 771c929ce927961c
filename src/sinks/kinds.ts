import { redact } from "../store/secrets.js";
import { SinkTargetError } from "./errors.js";
import type { SinkKind } from "./sink.js";

/**
 * Every kind of sink, by what `--to` looks like; each loads only when used (pg or better-sqlite3 only for the run
 * that needs it). A new kind is one file exporting a SinkKind plus one line here.
 */
const KINDS: { name: string; accepts(to: string): boolean; load(): Promise<SinkKind> }[] = [
  {
    name: "postgis",
    accepts: (to) => /^postgres(ql)?:\/\//i.test(to),
    load: async () => (await import("./postgis/database.js")).postgisSink,
  },
  {
    name: "geopackage",
    accepts: (to) => /\.gpkg$/i.test(to) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(to),
    load: async () => (await import("./geopackage/database.js")).geopackageSink,
  },
];

export async function sinkKindFor(to: string): Promise<SinkKind> {
  const found = KINDS.find((k) => k.accepts(to));
  if (!found)
    throw new SinkTargetError(
      `--to ${JSON.stringify(redact(to))} is neither a PostgreSQL URL (postgresql://host:port/database?schema=name, with the user before the host or in PGUSER) nor a GeoPackage path (ending in .gpkg)`,
    );
  return found.load();
}
