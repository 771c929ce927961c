import type Database from "better-sqlite3";
import { quoteName } from "../sql-names.js";

/**
 * A packed R-tree written straight into SQLite's R-tree shadow tables (sqlite/ext/rtree: `<name>_node`,
 * `<name>_rowid`, `<name>_parent`), for a table loaded before its index. SQLite's own insertion costs ~13 µs per
 * row (a node blob rewritten per insert); packing the rows in their order (the artifact's spatial order) into
 * full nodes, level by level, costs a fraction of that and gives a tree SQLite reads and updates as its own
 * (`rtreecheck()` passes: test/sinks). The virtual table must exist and be empty.
 */

/** One leaf entry: a row id and its box. */
export interface RtreeEntry {
  id: number;
  minx: number;
  maxx: number;
  miny: number;
  maxy: number;
}

/** The float32 at or below v (SQLite's R-tree stores boxes as float32, rounded outwards). */
function down(v: number): number {
  const f = Math.fround(v);
  return f <= v ? f : nextFloat32(f, -1);
}

function up(v: number): number {
  const f = Math.fround(v);
  return f >= v ? f : nextFloat32(f, 1);
}

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);
function nextFloat32(f: number, direction: 1 | -1): number {
  if (f === 0) return direction > 0 ? 1e-45 : -1e-45;
  f32[0] = f;
  i32[0] = (i32[0] as number) + (f > 0 === direction > 0 ? 1 : -1);
  return f32[0] as number;
}

export function writePackedRtree(db: Database.Database, name: string, entries: readonly RtreeEntry[]): void {
  const root = db.prepare(`SELECT data FROM ${quoteName(`${name}_node`)} WHERE nodeno = 1`).get() as { data: Buffer };
  const nodeSize = root.data.length;
  const perNode = Math.floor((nodeSize - 4) / 24);
  // Levels bottom up: each a list of nodes, each node a list of [child id, box].
  let level: Cell[] = entries.map((e) => ({ id: e.id, box: [down(e.minx), up(e.maxx), down(e.miny), up(e.maxy)] }));
  const levels: Cell[][][] = [];
  do {
    const nodes: Cell[][] = [];
    for (let i = 0; i < level.length; i += perNode) nodes.push(level.slice(i, i + perNode));
    if (nodes.length === 0) nodes.push([]);
    levels.push(nodes);
    level = nodes.map((cells) => ({ id: 0, box: union(cells) }));
  } while (level.length > 1);
  // Node numbers: the root is 1, then every other node level by level from the top.
  let next = 2;
  const numbers = levels.map((nodes, depth) => nodes.map(() => (depth === levels.length - 1 ? 1 : next++)));
  // Shadow tables are writable only outside SQLite's defensive mode (better-sqlite3's unsafe mode), for this write.
  db.unsafeMode(true);
  try {
    writeNodes(db, name, levels, numbers, nodeSize, perNode);
  } finally {
    db.unsafeMode(false);
  }
}

type Cell = { id: number; box: [number, number, number, number] };

function writeNodes(
  db: Database.Database,
  name: string,
  levels: Cell[][][],
  numbers: number[][],
  nodeSize: number,
  perNode: number,
): void {
  db.exec(
    `DELETE FROM ${quoteName(`${name}_node`)}; DELETE FROM ${quoteName(`${name}_rowid`)}; DELETE FROM ${quoteName(`${name}_parent`)}`,
  );
  const node = db.prepare(`INSERT INTO ${quoteName(`${name}_node`)} (nodeno, data) VALUES (?, ?)`);
  const rowid = db.prepare(`INSERT INTO ${quoteName(`${name}_rowid`)} (rowid, nodeno) VALUES (?, ?)`);
  const parent = db.prepare(`INSERT INTO ${quoteName(`${name}_parent`)} (nodeno, parentnode) VALUES (?, ?)`);
  const height = levels.length;
  for (let l = 0; l < height; l++) {
    const nodes = levels[l] as Cell[][];
    nodes.forEach((cells, k) => {
      const nodeno = (numbers[l] as number[])[k] as number;
      const data = Buffer.alloc(nodeSize);
      if (nodeno === 1) data.writeUInt16BE(height - 1, 0); // the root holds the tree's depth
      data.writeUInt16BE(cells.length, 2);
      cells.forEach((cell, c) => {
        const at = 4 + c * 24;
        const child = l === 0 ? cell.id : ((numbers[l - 1] as number[])[(k * perNode + c) as number] as number);
        data.writeBigInt64BE(BigInt(child), at);
        for (let d = 0; d < 4; d++) data.writeFloatBE(cell.box[d] as number, at + 8 + d * 4);
        if (l === 0) rowid.run(child, nodeno);
        else parent.run(child, nodeno);
      });
      node.run(nodeno, data);
    });
  }
}

function union(cells: { box: [number, number, number, number] }[]): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const { box } of cells) {
    if (box[0] < b[0]) b[0] = box[0];
    if (box[1] > b[1]) b[1] = box[1];
    if (box[2] < b[2]) b[2] = box[2];
    if (box[3] > b[3]) b[3] = box[3];
  }
  return b;
}
