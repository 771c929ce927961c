import type pg from "pg";
import { inject } from "vitest";
import { quoteIdent } from "../../src/sinks/sql-names.js";

/**
 * Schemas of one test file on the test PostgreSQL: `schema(name)` names one apart from other files' (the pid),
 * `to(s)` is the sink URL into it, `dropAll(client)` removes every one named.
 */
export function pgSchemas(): {
  names: string[];
  schema(name: string): string;
  to(schema: string): string;
  dropAll(client: pg.Client): Promise<void>;
} {
  const names: string[] = [];
  return {
    names,
    schema(name) {
      const s = `${name}_${process.pid}`;
      names.push(s);
      return s;
    },
    to: (s) => `${inject("postgres") as string}?schema=${encodeURIComponent(s)}`,
    async dropAll(client) {
      for (const s of names) await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(s)} CASCADE`);
    },
  };
}
