import { DuckDBInstance } from "@duckdb/node-api";
import type { DuckDBConnection } from "@duckdb/node-api";

/** DuckDB, the independent reader our files must satisfy. One thread, like the benchmark reference. */
export async function duckdb(): Promise<DuckDBConnection> {
  const db = await DuckDBInstance.create(":memory:", { threads: "1" });
  return db.connect();
}

export async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}
