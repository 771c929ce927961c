import type { RecordBatch } from "apache-arrow";
import type { SourceColumn, SourceSpec } from "./source-spec.js";

/** The file a reader opens: the run's verified local copy, and what messages call it. */
export interface SourceFile {
  path: string;
  /** The url as configured (credentials removed), for messages. */
  name: string;
  /** A bare Shapefile's sidecar (".dbf", ".prj", …): its verified local path, undefined when there is none. */
  sidecar(extension: string): Promise<string | undefined>;
}

export interface ReadOptions {
  layer?: string;
  encoding?: string;
  geometry?: SourceSpec["geometry"];
  columns?: Record<string, SourceColumn>;
}

/** What a reader found: the CRS the file declares, and its rows in record batches (WKB in that CRS). */
export interface OpenedSource {
  /** WKT, PROJJSON or "AUTH:CODE"; undefined when the file does not say. */
  crs: unknown;
  /** Where the CRS was read, or why there is none, for messages ("its .prj", "a CSV file carries no CRS"). */
  crsFrom: string;
  /** What the format's specification implies when the file is silent (GeoJSON: "OGC:CRS84"). */
  impliedCrs?: string;
  batches(): AsyncIterable<RecordBatch>;
  close(): Promise<void>;
}

/** One file format. A new one is a file exporting a SourceFormat plus one line in formats.ts. */
export interface SourceFormat {
  name: SourceSpec["format"];
  open(file: SourceFile, options: ReadOptions): Promise<OpenedSource>;
}
