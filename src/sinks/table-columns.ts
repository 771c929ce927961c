import { SinkRefusedError } from "./errors.js";
import type { SinkTableShape } from "./sink.js";

/**
 * The data columns an existing table lacks (to add: a dataset's new column), given each column's type as the
 * database spells it. A key column missing, or a column whose type changed, is refused: the table was made for
 * another version of the dataset, and a new table is the way on.
 */
export function columnsToAdd(
  shape: SinkTableShape,
  has: ReadonlyMap<string, string>,
  typeOf: (arrowType: string, column: string) => string,
  table: string,
  accepts: (found: string, wanted: string) => boolean = (found, wanted) => found === wanted,
): { name: string; type: string }[] {
  const add: { name: string; type: string }[] = [];
  for (const c of shape.columns) {
    const type = typeOf(c.type, c.name);
    const found = has.get(c.name);
    if (found === undefined) {
      if (shape.key.includes(c.name))
        throw new SinkRefusedError(
          `${table} has no key column ${JSON.stringify(c.name)}: the dataset's key changed; sink into a new table`,
        );
      add.push({ name: c.name, type });
    } else if (!accepts(found, type))
      throw new SinkRefusedError(
        `${table}: column ${JSON.stringify(c.name)} is ${found}, but the artifact's ${c.type} needs ${type}: change the column's type in the database, or sink into a new table`,
      );
  }
  return add;
}
