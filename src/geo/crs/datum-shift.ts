import { fromGeocentric, helmert, toGeocentric } from "./geocentric.js";
import type { IndexedDatum, IndexedOperation, Step } from "./epsg-index.js";

/**
 * How lon/lat on a CRS's own datum become WGS 84 lon/lat: PROJ's candidate transformations (those that need no
 * grid file), and PROJ's rule for which one a point gets (proj_trans: among the candidates whose area of use holds
 * the point, the best accuracy; on a tie the smaller area; never an offshore area over an onshore one; where none
 * holds it, the first that needs no grid).
 */
export interface Operation {
  name: string;
  accuracy: number;
  area: [number, number, number, number];
  pseudoArea: number;
  offshore: boolean;
  unknownArea: boolean;
  ballpark: boolean;
  /** Lon/lat degrees on the source datum → WGS 84, in place. */
  forward(v: Float64Array): void;
  inverse(v: Float64Array): void;
}

export interface DatumShift {
  /** The base geographic CRS, for messages: "NAD27 (EPSG:4267)". */
  label: string;
  /** The same key for two CRSs on the same datum: no shift between them. */
  key: string;
  operations: Operation[];
  /** Grids PROJ's better transformations need (for the refusal's advice). */
  grids: string[];
  /** Every candidate is a null shift: WGS 84 lon/lat are the datum's own. */
  identity: boolean;
  /**
   * EPSG registers a null transformation to WGS 84 for this datum (NAD83, ETRS89, GDA94…): its ballpark, where PROJ
   * falls back to it, gives the very numbers of that registered transformation, so it is not refused.
   */
  nullRegistered: boolean;
  /** A custom CRS's datum found by its DATUM name (label), not by a TOWGS84 of its own. */
  fromName?: boolean;
}

export class DatumShiftRefused extends Error {}

const RAD = Math.PI / 180;

function run(steps: Step[], v: Float64Array, inverse: boolean): void {
  const xyz = new Float64Array(3);
  const ordered = inverse ? [...steps].reverse() : steps;
  let lon = v[0] as number;
  let lat = v[1] as number;
  for (const step of ordered) {
    switch (step[0]) {
      case "cart":
      case "icart": {
        const toXyz = (step[0] === "cart") !== inverse;
        if (toXyz) toGeocentric(lon, lat, step[1], xyz);
        else {
          const out = new Float64Array(2);
          fromGeocentric(xyz[0] as number, xyz[1] as number, xyz[2] as number, step[1], out);
          lon = out[0] as number;
          lat = out[1] as number;
        }
        break;
      }
      case "helmert":
        helmert(xyz, step[1], step[2], step[3] !== inverse, step[4]);
        break;
      case "helmert-t":
        // With no observation time PROJ evaluates a time-dependent Helmert at its reference epoch: the rates vanish.
        helmert(xyz, step[1], step[2], step[3] !== inverse);
        break;
      case "geogoffset": {
        const sign = step[3] !== inverse ? -1 : 1;
        lon += (sign * step[1]) / 3600;
        lat += (sign * step[2]) / 3600;
        break;
      }
    }
  }
  v[0] = lon;
  v[1] = lat;
}

function operation(op: IndexedOperation, area: [number, number, number, number]): Operation {
  const [w, s, e, n] = area;
  const steps = op.steps ?? [];
  return {
    name: op.name,
    accuracy: op.accuracy,
    area,
    // PROJ's pseudo-area: the integral of cos(lat) over the box.
    pseudoArea: (e - w) * RAD * (Math.sin(n * RAD) - Math.sin(s * RAD)),
    offshore: op.offshore === true,
    unknownArea: op.unknownArea === true,
    ballpark: op.ballpark === true,
    forward: (v) => {
      if (op.unsupported)
        throw new DatumShiftRefused(`its transformation ${op.name} uses a method georefresh does not run`);
      if (steps.length) run(steps, v, false);
    },
    inverse: (v) => {
      if (op.unsupported)
        throw new DatumShiftRefused(`its transformation ${op.name} uses a method georefresh does not run`);
      if (steps.length) run(steps, v, true);
    },
  };
}

/** The prepared candidates, an antimeridian-crossing area split in two as PROJ splits it. */
export function datumShift(label: string, key: string, datum: IndexedDatum): DatumShift {
  const operations: Operation[] = [];
  for (const op of datum.ops) {
    const [w, s, e, n] = op.area;
    if (w <= e) operations.push(operation(op, op.area));
    else operations.push(operation(op, [w, s, 180, n]), operation(op, [-180, s, e, n]));
  }
  const identity =
    datum.ops.length > 0 && datum.ops.every((o) => !o.ballpark && !o.unsupported && (o.steps?.length ?? 0) === 0);
  const nullRegistered = datum.ops.some((o) => !o.ballpark && !o.unsupported && (o.steps?.length ?? 0) === 0);
  return { label, key, operations, grids: datum.grids ?? [], identity, nullRegistered };
}

/**
 * The datum's candidates as PROJ ranks them for one CRS: its area of use filters and orders them (an order that
 * decides which candidate a point gets where an offshore area or a tie is met), given by name.
 */
export function rankedFor(shift: DatumShift, names: string[]): DatumShift {
  return { ...shift, operations: names.flatMap((n) => shift.operations.filter((o) => o.name === n)) };
}

/** WGS 84 itself. */
export const WGS84_SHIFT: DatumShift = {
  label: "WGS 84 (EPSG:4326)",
  key: "4326",
  operations: [],
  grids: [],
  identity: true,
  nullRegistered: true,
};

/**
 * The candidate PROJ's proj_trans gives the point (x, y), each candidate's area of use given as a box in the
 * point's own coordinates; undefined when there is no candidate at all.
 */
export function pickOperation(
  ops: Operation[],
  boxes: [number, number, number, number][],
  x: number,
  y: number,
  lonLat: boolean,
): Operation | undefined {
  let best = -1;
  let bestAccuracy = Number.MAX_VALUE;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as Operation;
    const [minx, miny, maxx, maxy] = boxes[i] as [number, number, number, number];
    let inside = x >= minx && y >= miny && x <= maxx && y <= maxy;
    if (!inside && lonLat && y >= miny && y <= maxy) {
      const lon = normalizeLongitude(x);
      inside = lon >= minx && lon <= maxx;
    }
    if (!inside) continue;
    const chosen = best < 0 ? undefined : (ops[best] as Operation);
    if (
      !chosen ||
      (((op.accuracy >= 0 && op.accuracy < bestAccuracy) ||
        (op.accuracy === bestAccuracy &&
          op.pseudoArea < chosen.pseudoArea &&
          !(op.unknownArea && !chosen.unknownArea))) &&
        !op.offshore)
    ) {
      best = i;
      bestAccuracy = op.accuracy;
    }
  }
  if (best >= 0) return ops[best];
  // No area holds the point: PROJ falls back to the first candidate that needs no grid (all of these need none).
  return ops[0];
}

function normalizeLongitude(x: number): number {
  if (x > 180) {
    x -= 360;
    if (x > 180) x = ((x + 180) % 360) - 180;
  } else if (x < -180) {
    x += 360;
    if (x < -180) x = ((x + 180) % 360) - 180;
  }
  return x;
}
