import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const JUDGE = fileURLToPath(new URL("./geopandas_judge.py", import.meta.url));

/** The venv scripts/test-deps.sh makes: GEOREFRESH_GEOPANDAS_VENV, else /opt (root), else the user's cache. */
export function geopandasPython(): string {
  const candidates = [
    process.env.GEOREFRESH_GEOPANDAS_VENV,
    "/opt/georefresh/geopandas-venv",
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "georefresh", "geopandas-venv"),
  ].filter((c): c is string => !!c);
  for (const venv of candidates) if (existsSync(join(venv, "bin", "python"))) return join(venv, "bin", "python");
  throw new Error(
    `no GeoPandas venv in ${candidates.join(", ")}: run bash scripts/test-deps.sh (it installs GeoPandas offline from pip's configured index)`,
  );
}

export interface GeoPandasJob {
  path: string;
  kind: "parquet" | "file";
  layer?: string;
  /** An Arrow IPC file from our own reader: the id, the WKB geometry and the columns to compare. */
  expected: string;
  id: string;
  crs: unknown;
  bbox?: [number, number, number, number];
}

export interface GeoPandasVerdict {
  rows: number;
  crs: string | null;
  crs_equal: boolean;
  missing: string[];
  extra: string[];
  unequal: string[];
  unequal_count: number;
  columns_differing: string[];
  bbox_ids?: string[];
}

/** GeoPandas (pyarrow, shapely, pyproj; pyogrio for other files) reads the file and compares it with ours. */
export async function geopandasJudge(job: GeoPandasJob): Promise<GeoPandasVerdict> {
  const { stdout } = await promisify(execFile)(geopandasPython(), [JUDGE, JSON.stringify(job)], {
    maxBuffer: 1 << 26,
  });
  return JSON.parse(stdout) as GeoPandasVerdict;
}
