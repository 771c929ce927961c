import { loadGeos } from "./validity-core.js";
import type { Geometry } from "./geometry.js";
import { decodeWkb, encodeWkb } from "./wkb.js";

function isEmpty(g: Geometry): boolean {
  if (g.type === "GeometryCollection") return g.geometries.every(isEmpty);
  const walk = (c: unknown): boolean => (Array.isArray(c) ? (typeof c[0] === "number" ? false : c.every(walk)) : true);
  return walk(g.coordinates);
}

/** A repair that would leave no area (a ring collapsed to a line or a point): there is nothing to keep. */
export class RepairError extends Error {}

/**
 * GEOS MakeValid with the "structure" method, keeping only areal parts: an invalid polygon (a simplified
 * boundary that crosses itself, a ring collapsed to a sliver) becomes the valid polygon it was meant to be.
 * Never called by the pipeline on its own: a task that repairs says so in its data (see src/builtins/us-counties.ts).
 * A repair that leaves nothing throws RepairError: an empty polygon is no repair, and must not pass for one.
 */
export async function makeValidPolygonal(g: Geometry): Promise<Geometry> {
  const { geos } = await loadGeos();
  const mod = geos.Module as unknown as {
    _malloc(n: number): number;
    _free(p: number): void;
    HEAPU8: Uint8Array;
    getValue(p: number, t: string): number;
  };
  const wkb = encodeWkb(g);
  const buf = mod._malloc(wkb.byteLength);
  const sizePtr = mod._malloc(8);
  const params = geos.GEOSMakeValidParams_create();
  try {
    mod.HEAPU8.set(wkb, buf);
    const input = geos.GEOSGeomFromWKB_buf(buf, wkb.byteLength);
    if (!input) throw new Error("GEOS could not read the geometry to repair it");
    geos.GEOSMakeValidParams_setMethod(params, 1 /* GEOS_MAKE_VALID_STRUCTURE */);
    geos.GEOSMakeValidParams_setKeepCollapsed(params, 0);
    const fixed = geos.GEOSMakeValidWithParams(input, params);
    geos.GEOSGeom_destroy(input);
    if (!fixed) throw new Error("GEOS MakeValid failed");
    const out = geos.GEOSGeomToWKB_buf(fixed, sizePtr as never) as unknown as number;
    geos.GEOSGeom_destroy(fixed);
    const size = mod.getValue(sizePtr, "i32");
    const bytes = mod.HEAPU8.slice(out, out + size);
    geos.GEOSFree(out as never);
    const repaired = decodeWkb(bytes);
    if (isEmpty(repaired))
      throw new RepairError(
        "its boundary has no area to keep (the ring collapses to a line or a point); MakeValid leaves it empty",
      );
    return repaired;
  } finally {
    geos.GEOSMakeValidParams_destroy(params);
    mod._free(buf);
    mod._free(sizePtr);
  }
}
