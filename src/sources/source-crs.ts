import { crsFromCode, crsFromDefinition, sameCrs, transformer } from "../geo/crs/crs.js";
import type { Crs } from "../geo/crs/crs.js";
import { SourceError } from "./errors.js";
import type { OpenedSource } from "./source-format.js";

/**
 * The CRS a source's rows are in: the file's own when it says (a `.prj`, `gpkg_spatial_ref_sys`, a FlatGeobuf
 * header, GeoParquet's PROJJSON, a GeoJSON `crs` member), else the source's `crs`, else what the format's
 * specification implies (GeoJSON: OGC:CRS84). A file that says one CRS while the config says another is refused:
 * one of them is wrong, and guessing which would put every coordinate in the wrong place. A file that says
 * nothing, of a format that implies nothing, with no `crs` in the config, is refused too: a dropped CRS fails
 * loudly.
 */
export function sourceCrs(
  opened: Pick<OpenedSource, "crs" | "crsFrom" | "impliedCrs">,
  declared: string | undefined,
  file: string,
): { crs: Crs; definition: unknown } {
  const fromConfig = declared === undefined ? undefined : crsFromDefinition(declared, `the source's "crs" for ${file}`);
  if (opened.crs !== undefined) {
    const read = readable(opened.crs);
    if (read instanceof Error) {
      // A definition no reader knows says nothing usable: the source's "crs" may say it, else the file is refused.
      if (fromConfig) return { crs: fromConfig, definition: declared };
      const why = read.message.replace(/^: /, "");
      throw new SourceError(
        `${file} (${opened.crsFrom}) holds a CRS definition georefresh cannot read (${excerpt(opened.crs)}): ${why}${
          why.includes('add "crs"')
            ? ""
            : `; add "crs": "EPSG:<code>" (the CRS its coordinates are in) to the dataset's "source" in the config, or fix the file's CRS`
        }`,
      );
    }
    const fromFile = read;
    if (fromConfig && !equivalent(fromFile, fromConfig))
      throw new SourceError(
        `${file} (${opened.crsFrom}) says the CRS is ${fromFile.id}, but the source's "crs" is ${fromConfig.id}; a file's own CRS wins, so remove "crs" from the source, or fix the file`,
      );
    return { crs: fromFile, definition: opened.crs };
  }
  if (fromConfig) return { crs: fromConfig, definition: declared };
  if (opened.impliedCrs !== undefined) return { crs: crsFromCode(opened.impliedCrs), definition: opened.impliedCrs };
  throw new SourceError(
    `${file} does not say its CRS (${opened.crsFrom}) and the source declares none; add "crs": "EPSG:<code>" (the CRS its coordinates are in) to the dataset's "source" in the config`,
  );
}

function readable(definition: unknown): Crs | Error {
  try {
    return crsFromDefinition(definition, "");
  } catch (error) {
    return error as Error;
  }
}

function excerpt(definition: unknown): string {
  const text = typeof definition === "string" ? definition : JSON.stringify(definition);
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 57)}...` : flat);
}

/**
 * Whether two CRSs put the same coordinates in the same place: the same definition, or (an ESRI `.prj` beside an
 * EPSG code) the same lon/lat, within 1e-7 degrees, for points across the second's area of use.
 */
function equivalent(a: Crs, b: Crs): boolean {
  if (sameCrs(a, b)) return true;
  if (a.geographic !== b.geographic) return false;
  const lonlat = crsFromCode("OGC:CRS84");
  const [w, s, e, n] = b.areaOfUse;
  const toB = transformer(lonlat, b);
  const aBack = transformer(a, lonlat);
  for (const fx of [0.25, 0.5, 0.75])
    for (const fy of [0.25, 0.5, 0.75]) {
      const p = [w + (e - w) * fx, s + (n - s) * fy];
      const q = aBack(toB(p));
      if (!(
        Math.abs((q[0] as number) - (p[0] as number)) < 1e-7 && Math.abs((q[1] as number) - (p[1] as number)) < 1e-7
      ))
        return false;
    }
  return true;
}
