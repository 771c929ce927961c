import { DEFAULT_LIMIT, MAX_LIMIT } from "./request.js";
import { MAX_ZOOM } from "./tiles.js";

/**
 * The service description (/api): an OpenAPI 3.0 document of every route and parameter (the oas30 conformance
 * class), which clients read for the page limit. test/serve/openapi.test.ts validates it against the spec.
 */
export function openApi(base: string): Record<string, unknown> {
  const json = { "application/json": { schema: { type: "object" } } };
  const geojson = { "application/geo+json": { schema: { type: "object" } } };
  const html = { "text/html": { schema: { type: "string" } } };
  const path = (name: string, description: string, schema: object = { type: "string" }) => ({
    name,
    in: "path",
    required: true,
    schema,
    description,
  });
  const collectionId = path("collectionId", "a dataset of the store");
  const query = (name: string, schema: object, description: string) => ({
    name,
    in: "query",
    required: false,
    schema,
    description,
    style: "form",
    explode: false,
  });
  const f = query("f", { type: "string", enum: ["json", "html"] }, "the encoding (else from Accept)");
  const datetime = query(
    "datetime",
    { type: "string" },
    "an instant (the dataset as it was then), a logical date, or an interval of them (2026-01-01/2026-03-31, ../2026-03-31)",
  );
  const snapshot = query("snapshot", { type: "string", pattern: "^([0-9a-f]{16}|latest)$" }, "a committed snapshot");
  const refused = { "400": { description: "a parameter is wrong (the body names it)", content: json } };
  const missing = { "404": { description: "no such dataset, feature or tile", content: json } };
  const get = (summary: string, parameters: object[], ok: object) => ({
    get: { summary, parameters, responses: { "200": { description: summary, content: ok }, ...refused, ...missing } },
  });
  return {
    openapi: "3.0.3",
    info: { title: "georefresh", version: "1", description: "The datasets of one georefresh store, read-only" },
    servers: [{ url: base }],
    paths: {
      "/": get("landing page", [f], { ...json, ...html }),
      "/api": get("this document", [], {
        "application/vnd.oai.openapi+json;version=3.0": { schema: { type: "object" } },
      }),
      "/conformance": get("conformance classes", [f], { ...json, ...html }),
      "/collections": get("the datasets", [f], { ...json, ...html }),
      "/collections/{collectionId}": get("a dataset", [collectionId, f], { ...json, ...html }),
      "/collections/{collectionId}/items": get(
        "a dataset's features, a page at a time (and equality on any column: ?zoning=R1)",
        [
          collectionId,
          query("limit", { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }, "page size"),
          query("bbox", { type: "array", minItems: 4, maxItems: 4, items: { type: "number" } }, "lon/lat box"),
          datetime,
          snapshot,
          query("next", { type: "string" }, "the page to start at, from a next link"),
          f,
        ],
        { ...geojson, ...html },
      ),
      "/collections/{collectionId}/items/{featureId}": get(
        "one feature, by the dataset's natural key",
        [
          collectionId,
          path("featureId", "the natural key's value (a composite key's joined by ',')"),
          datetime,
          snapshot,
          f,
        ],
        { ...geojson, ...html },
      ),
      "/collections/{collectionId}/tiles/WebMercatorQuad/{z}/{x}/{y}": get(
        "a Mapbox Vector Tile of the dataset (one layer, named after it)",
        [
          collectionId,
          path("z", "zoom", { type: "integer", minimum: 0, maximum: MAX_ZOOM }),
          path("x", "column", { type: "integer", minimum: 0 }),
          path("y", "row", { type: "integer", minimum: 0 }),
          datetime,
          snapshot,
        ],
        { "application/vnd.mapbox-vector-tile": { schema: { type: "string", format: "binary" } } },
      ),
      "/collections/{collectionId}/map": get("a map of the dataset's tiles, with a date slider", [collectionId], html),
    },
  };
}
