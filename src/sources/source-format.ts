import type { RecordBatch } from "apache-arrow";
import type { ReadingOptions } from "./source-options.js";

/** The file a reader opens: the run's verified local copy, and what messages call it. */
export interface SourceFile {
  path: string;
  /** The url as configured (credentials removed), for messages. */
  name: string;
  /** A bare Shapefile's sidecar (".dbf", ".prj", …): its verified local path, undefined when there is none. */
  sidecar(extension: string): Promise<string | undefined>;
}

/** The options the source gives, of those its format declares (formats.ts); `crs` is applied by the task, not the reader. */
export type ReadOptions = ReadingOptions;

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

/** One file format's reader. A new one is a file exporting a SourceFormat plus one entry in formats.ts. */
export interface SourceFormat {
  name: string;
  open(file: SourceFile, options: ReadOptions): Promise<OpenedSource>;
}
