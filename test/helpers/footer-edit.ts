import { joinFooter, splitFooter } from "../../src/geoparquet/footer.js";
import { field, list, listField, setField, struct, structField, T, text, utf8 } from "../../src/geoparquet/thrift.js";
import type { ThriftStruct } from "../../src/geoparquet/thrift.js";

/**
 * Edits a Parquet footer in place of a hand-written bad file: each validate rule gets a file that breaks only
 * that rule. Data pages are untouched.
 */
export function editFooter(bytes: Uint8Array, edit: (metadata: ThriftStruct) => void): Uint8Array {
  const file = splitFooter(bytes);
  edit(file.metadata);
  return joinFooter(file);
}

/** Rewrites the `geo` key's JSON. */
export function editGeo(bytes: Uint8Array, edit: (geo: Record<string, any>) => void): Uint8Array {
  return editFooter(bytes, (m) => {
    for (const kv of listField(m, 5) as ThriftStruct[]) {
      if (text(field(kv, 1)) !== "geo") continue;
      const geo = JSON.parse(text(field(kv, 2)) as string) as Record<string, any>;
      edit(geo);
      setField(kv, 2, T.BINARY, utf8(JSON.stringify(geo)));
    }
  });
}

/** Every column chunk's ColumnMetaData, with its path, row group by row group. */
export function chunkMetas(m: ThriftStruct): { group: number; path: string[]; meta: ThriftStruct }[] {
  return (listField(m, 4) as ThriftStruct[]).flatMap((rg, group) =>
    (listField(rg, 1) as ThriftStruct[]).flatMap((c) => {
      const meta = structField(c, 3);
      return meta ? [{ group, path: listField(meta, 3).map((p) => text(p) as string), meta }] : [];
    }),
  );
}

/** Sets the `geo` key to `geo`, adding it when the writer wrote none. */
export function setGeo(bytes: Uint8Array, geo: unknown): Uint8Array {
  return editFooter(bytes, (m) => {
    const kvs = (listField(m, 5) as ThriftStruct[]).filter((kv) => text(field(kv, 1)) !== "geo");
    kvs.push(
      struct(
        { id: 1, type: T.BINARY, value: utf8("geo") },
        { id: 2, type: T.BINARY, value: utf8(JSON.stringify(geo)) },
      ),
    );
    setField(m, 5, T.LIST, list(T.STRUCT, kvs));
  });
}
