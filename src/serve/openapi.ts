import { DEFAULT_LIMIT, MAX_LIMIT } from "./request.js";

/** The service description (/api): an OpenAPI 3.0 document of the routes, which clients read for the page limit. */
export function openApi(base: string): Record<string, unknown> {
  const json = { "application/json": { schema: { type: "object" } } };
  const collectionId = { name: "collectionId", in: "path", required: true, schema: { type: "string" } };
  const query = (name: string, schema: object, description: string) => ({
    name,
    in: "query",
    required: false,
    schema,
    description,
    style: "form",
    explode: false,
  });
  return {
    openapi: "3.0.3",
    info: { title: "georefresh", version: "1", description: "The datasets of one georefresh store, read-only" },
    servers: [{ url: base }],
    paths: {
      "/": { get: { summary: "landing page", responses: { "200": { description: "links", content: json } } } },
      "/conformance": {
        get: { summary: "conformance classes", responses: { "200": { description: "", content: json } } },
      },
      "/collections": { get: { summary: "the datasets", responses: { "200": { description: "", content: json } } } },
      "/collections/{collectionId}": {
        get: {
          summary: "a dataset",
          parameters: [collectionId],
          responses: { "200": { description: "", content: json }, "404": { description: "no such dataset" } },
        },
      },
      "/collections/{collectionId}/items": {
        get: {
          summary: "a dataset's features, a page at a time",
          parameters: [
            collectionId,
            query("limit", { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }, "page size"),
            query("bbox", { type: "array", minItems: 4, maxItems: 4, items: { type: "number" } }, "lon/lat box"),
            query("datetime", { type: "string" }, "an instant (as of then) or logical dates"),
            query("next", { type: "string" }, "the page to start at, from a next link"),
          ],
          responses: {
            "200": { description: "features", content: { "application/geo+json": { schema: { type: "object" } } } },
            "400": { description: "a parameter is wrong", content: json },
          },
        },
      },
    },
  };
}
