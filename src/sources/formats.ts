import type { SourceFormat } from "./source-format.js";
import type { SourceFormatName } from "./source-spec.js";

/** The readers, by format; each loads on first use. A new format is one reader file and one line here. */
const READERS: Record<SourceFormatName, () => Promise<SourceFormat>> = {
  geojson: async () => (await import("./geojson.js")).geojsonFormat,
  geojsonseq: async () => (await import("./geojsonseq.js")).geojsonSeqFormat,
  flatgeobuf: async () => (await import("./flatgeobuf.js")).flatgeobufFormat,
  shapefile: async () => (await import("./shapefile.js")).shapefileFormat,
  gpkg: async () => (await import("./gpkg.js")).gpkgFormat,
  csv: async () => (await import("./csv.js")).csvFormat,
  geoparquet: async () => (await import("./geoparquet.js")).geoparquetFormat,
};

export function loadFormat(name: SourceFormatName): Promise<SourceFormat> {
  return READERS[name]();
}
