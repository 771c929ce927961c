/** A table made for an earlier version of a dataset: a new column is added; a changed type or key is refused. */
import { describe, expect, it } from "vitest";
import { sqlTypeOf } from "../../src/sinks/postgis/types.js";
import { columnsToAdd } from "../../src/sinks/table-columns.js";

const shape = (columns: [string, string][]) => ({
  dataset: "parcels",
  key: ["parcel_id"],
  columns: columns.map(([name, type]) => ({ name, type })),
  crs: "OGC:CRS84",
  hasZ: false,
});

describe("a sink table's columns against a dataset's", () => {
  const has = new Map([
    ["parcel_id", "text"],
    ["zoning", "text"],
  ]);
  it("adds the columns the table lacks, with their SQL types", () => {
    const s = shape([
      ["parcel_id", "Utf8"],
      ["zoning", "Utf8"],
      ["acres", "Float64"],
    ]);
    expect(columnsToAdd(s, has, sqlTypeOf, "t")).toEqual([{ name: "acres", type: "double precision" }]);
    expect(columnsToAdd(shape([["parcel_id", "Utf8"]]), has, sqlTypeOf, "t")).toEqual([]); // a dropped column stays
  });
  it("refuses a column whose type changed, and a key column the table lacks", () => {
    expect(() =>
      columnsToAdd(
        shape([
          ["zoning", "Int32"],
          ["parcel_id", "Utf8"],
        ]),
        has,
        sqlTypeOf,
        "t",
      ),
    ).toThrow(
      /t: column "zoning" is text, but the artifact's Int32 needs integer: change the column's type in the database, or sink into a new table/,
    );
    const rekeyed = { ...shape([["apn", "Utf8"]]), key: ["apn"] };
    expect(() => columnsToAdd(rekeyed, has, sqlTypeOf, "t")).toThrow(
      /t has no key column "apn": the dataset's key changed/,
    );
  });
});
