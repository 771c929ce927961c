/** Writes the standard sample in a separate process and prints its sha256 (cross-process determinism). */
import { createHash } from "node:crypto";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { sampleFeatures } from "./sample.js";

const n = Number(process.argv[2] ?? 5000);
const { table } = featuresToTable(sampleFeatures(n));
const { bytes } = await writeGeoParquet(table, { crs: crsFromCode("OGC:CRS84"), idColumn: "id" });
process.stdout.write(createHash("sha256").update(bytes).digest("hex"));
