/**
 * PROJJSON documents for the CRSs georefresh writes, built from their defining parameters (EPSG registry
 * values) so that PROJ (pyproj, GDAL, GeoPandas) rebuilds the same CRS from the GeoParquet footer.
 */
const SCHEMA = "https://proj.org/schemas/v0.7/projjson.schema.json";

export interface Datum {
  name: string;
  ellipsoid: { name: string; semi_major_axis: number; inverse_flattening: number };
  code: number; // EPSG code of the geographic CRS on this datum
  crsName: string;
}

export const WGS84: Datum = {
  name: "World Geodetic System 1984",
  ellipsoid: { name: "WGS 84", semi_major_axis: 6378137, inverse_flattening: 298.257223563 },
  code: 4326,
  crsName: "WGS 84",
};

export const NAD83: Datum = {
  name: "North American Datum 1983",
  ellipsoid: { name: "GRS 1980", semi_major_axis: 6378137, inverse_flattening: 298.257222101 },
  code: 4269,
  crsName: "NAD83",
};

const deg = { type: "AngularUnit" as const, name: "degree", conversion_factor: 0.0174532925199433 };

function datumJson(d: Datum) {
  return { type: "GeodeticReferenceFrame", name: d.name, ellipsoid: d.ellipsoid };
}

export function geographicProjjson(d: Datum): Record<string, unknown> {
  return {
    $schema: SCHEMA,
    type: "GeographicCRS",
    name: d.crsName,
    datum: datumJson(d),
    coordinate_system: {
      subtype: "ellipsoidal",
      axis: [
        { name: "Geodetic latitude", abbreviation: "Lat", direction: "north", unit: "degree" },
        { name: "Geodetic longitude", abbreviation: "Lon", direction: "east", unit: "degree" },
      ],
    },
    id: { authority: "EPSG", code: d.code },
  };
}

export interface Parameter {
  name: string;
  value: number;
  unit: "degree" | "metre" | "unity";
  code: number;
}

export function projectedProjjson(
  name: string,
  code: number,
  base: Datum,
  method: { name: string; code: number },
  conversionName: string,
  parameters: Parameter[],
): Record<string, unknown> {
  const baseCrs = geographicProjjson(base);
  delete baseCrs.$schema;
  return {
    $schema: SCHEMA,
    type: "ProjectedCRS",
    name,
    base_crs: baseCrs,
    conversion: {
      name: conversionName,
      method: { name: method.name, id: { authority: "EPSG", code: method.code } },
      parameters: parameters.map((p) => ({
        name: p.name,
        value: p.value,
        unit: p.unit === "degree" ? deg : p.unit,
        id: { authority: "EPSG", code: p.code },
      })),
    },
    coordinate_system: {
      subtype: "Cartesian",
      axis: [
        { name: "Easting", abbreviation: "E", direction: "east", unit: "metre" },
        { name: "Northing", abbreviation: "N", direction: "north", unit: "metre" },
      ],
    },
    id: { authority: "EPSG", code },
  };
}

export const P = {
  latOrigin: (v: number): Parameter => ({ name: "Latitude of natural origin", value: v, unit: "degree", code: 8801 }),
  lonOrigin: (v: number): Parameter => ({ name: "Longitude of natural origin", value: v, unit: "degree", code: 8802 }),
  scale: (v: number): Parameter => ({ name: "Scale factor at natural origin", value: v, unit: "unity", code: 8805 }),
  falseEasting: (v: number): Parameter => ({ name: "False easting", value: v, unit: "metre", code: 8806 }),
  falseNorthing: (v: number): Parameter => ({ name: "False northing", value: v, unit: "metre", code: 8807 }),
  latFalseOrigin: (v: number): Parameter => ({
    name: "Latitude of false origin",
    value: v,
    unit: "degree",
    code: 8821,
  }),
  lonFalseOrigin: (v: number): Parameter => ({
    name: "Longitude of false origin",
    value: v,
    unit: "degree",
    code: 8822,
  }),
  lat1: (v: number): Parameter => ({ name: "Latitude of 1st standard parallel", value: v, unit: "degree", code: 8823 }),
  lat2: (v: number): Parameter => ({ name: "Latitude of 2nd standard parallel", value: v, unit: "degree", code: 8824 }),
  eastingFalseOrigin: (v: number): Parameter => ({
    name: "Easting at false origin",
    value: v,
    unit: "metre",
    code: 8826,
  }),
  northingFalseOrigin: (v: number): Parameter => ({
    name: "Northing at false origin",
    value: v,
    unit: "metre",
    code: 8827,
  }),
};
