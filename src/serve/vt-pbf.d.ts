// vt-pbf ships no types; this is the one function the tiles use (its README: fromGeojsonVt).
declare module "vt-pbf" {
  /** A Mapbox Vector Tile of one or more layers, each a tile geojson-vt cut (features with tags). */
  export function fromGeojsonVt(
    layers: Record<string, { features: readonly object[] }>,
    options?: { version?: number; extent?: number },
  ): Uint8Array;
}
