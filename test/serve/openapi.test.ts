/**
 * /api is a valid OpenAPI 3.0 document (the oas30 conformance class the server claims), checked against the
 * OpenAPI Initiative's own JSON schema (@seriousme/openapi-schema-validator), and names every route served.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { openApi } from "../../src/serve/openapi.js";

describe("serve's OpenAPI document", () => {
  it("validates against the OpenAPI 3.0 schema and describes items, one feature, tiles and the map", async () => {
    const doc = openApi("http://127.0.0.1:8080");
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(doc.paths as object)).toEqual(
      expect.arrayContaining([
        "/collections/{collectionId}/items",
        "/collections/{collectionId}/items/{featureId}",
        "/collections/{collectionId}/tiles/WebMercatorQuad/{z}/{x}/{y}",
        "/collections/{collectionId}/map",
      ]),
    );
    // A path parameter the route does not name makes the document invalid: the validator is not a rubber stamp.
    const broken = structuredClone(doc) as { paths: Record<string, { get: { parameters: object[] } }> };
    broken.paths["/collections"]?.get.parameters.push({ name: "x", in: "path", required: false });
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});
