import { circularLine, joinedLine } from "../../geo/curves.js";
import type { Geometry, Position } from "../../geo/geometry.js";

/** WKT (OGC 06-103r4, with Z, M and ZM; an EWKT "SRID=…;" prefix is skipped) → a geometry. M values are dropped. */
export function parseWkt(text: string): Geometry {
  const p = new WktParser(text.replace(/^\s*SRID=\d+\s*;/i, ""));
  const g = p.geometry();
  p.end();
  return g;
}

export class WktError extends Error {}

class WktParser {
  private at = 0;
  private hasZ = false;
  private hasM = false;
  constructor(private readonly s: string) {}

  private skip(): void {
    while (this.at < this.s.length && /\s/.test(this.s[this.at] as string)) this.at++;
  }

  private word(): string {
    this.skip();
    const m = /^[A-Za-z]+/.exec(this.s.slice(this.at, this.at + 20));
    if (!m) throw this.fail("a geometry type");
    this.at += m[0].length;
    return m[0].toUpperCase();
  }

  private peek(ch: string): boolean {
    this.skip();
    return this.s[this.at] === ch;
  }

  private expect(ch: string): void {
    if (!this.peek(ch)) throw this.fail(`'${ch}'`);
    this.at++;
  }

  private fail(what: string): WktError {
    return new WktError(`expected ${what} at character ${this.at + 1} of ${JSON.stringify(this.s.slice(0, 60))}`);
  }

  end(): void {
    this.skip();
    if (this.at !== this.s.length) throw this.fail("the end");
  }

  geometry(): Geometry {
    const type = this.word();
    this.skip();
    const saved = [this.hasZ, this.hasM];
    const dims = /^(ZM|Z|M)\b/i.exec(this.s.slice(this.at, this.at + 3));
    if (dims) {
      this.at += dims[0].length;
      const d = dims[0].toUpperCase();
      this.hasZ = d.includes("Z");
      this.hasM = d.includes("M");
    }
    const empty = this.emptyNext();
    let g: Geometry;
    switch (type) {
      case "POINT":
        g = { type: "Point", coordinates: empty ? [] : this.wrapped(() => this.position()) };
        break;
      case "LINESTRING":
        g = { type: "LineString", coordinates: empty ? [] : this.list(() => this.position()) };
        break;
      case "POLYGON":
        g = { type: "Polygon", coordinates: empty ? [] : this.list(() => this.list(() => this.position())) };
        break;
      case "MULTIPOINT":
        // Both (1 2, 3 4) and ((1 2), (3 4)) are written in the wild.
        g = {
          type: "MultiPoint",
          coordinates: empty
            ? []
            : this.list(() => (this.peek("(") ? this.wrapped(() => this.position()) : this.position())),
        };
        break;
      case "MULTILINESTRING":
        g = { type: "MultiLineString", coordinates: empty ? [] : this.list(() => this.list(() => this.position())) };
        break;
      case "MULTIPOLYGON":
        g = {
          type: "MultiPolygon",
          coordinates: empty ? [] : this.list(() => this.list(() => this.list(() => this.position()))),
        };
        break;
      case "GEOMETRYCOLLECTION":
        g = { type: "GeometryCollection", geometries: empty ? [] : this.list(() => this.geometry()) };
        break;
      // Curves: the straight segments OGR makes of them (geo/curves.ts), as OGR's CSV reader gives them to ogr2ogr.
      case "CIRCULARSTRING": {
        const points = empty ? [] : this.list(() => this.position());
        g = { type: "LineString", coordinates: this.arcs(points) };
        break;
      }
      case "COMPOUNDCURVE":
        g = { type: "LineString", coordinates: empty ? [] : joinedLine(this.list(() => this.curve())) };
        break;
      case "CURVEPOLYGON":
        g = { type: "Polygon", coordinates: empty ? [] : this.list(() => this.curve()) };
        break;
      case "MULTICURVE":
        g = { type: "MultiLineString", coordinates: empty ? [] : this.list(() => this.curve()) };
        break;
      case "MULTISURFACE":
        g = { type: "MultiPolygon", coordinates: empty ? [] : this.list(() => this.surface()) };
        break;
      default:
        throw new WktError(`unknown geometry type ${type} in ${JSON.stringify(this.s.slice(0, 60))}`);
    }
    this.hasZ = saved[0] as boolean;
    this.hasM = saved[1] as boolean;
    return g;
  }

  private arcs(points: Position[]): Position[] {
    try {
      return circularLine(points, points[0]?.length === 3);
    } catch (error) {
      throw new WktError(`${(error as Error).message}, in ${JSON.stringify(this.s.slice(0, 60))}`);
    }
  }

  /** A curve's member: a bare (…) line, or a LINESTRING, CIRCULARSTRING or COMPOUNDCURVE, as a line. */
  private curve(): Position[] {
    if (this.peek("(")) return this.list(() => this.position());
    const g = this.geometry();
    if (g.type !== "LineString") throw this.fail("a line, an arc or a compound curve");
    return g.coordinates;
  }

  /** A surface's member: a bare ((…)) polygon, or a POLYGON or CURVEPOLYGON, as a polygon's rings. */
  private surface(): Position[][] {
    if (this.peek("(")) return this.list(() => this.list(() => this.position()));
    const g = this.geometry();
    if (g.type !== "Polygon") throw this.fail("a polygon or a curve polygon");
    return g.coordinates;
  }

  private emptyNext(): boolean {
    this.skip();
    if (/^EMPTY\b/i.test(this.s.slice(this.at, this.at + 6))) {
      this.at += 5;
      return true;
    }
    return false;
  }

  private wrapped<T>(item: () => T): T {
    this.expect("(");
    const v = item();
    this.expect(")");
    return v;
  }

  private list<T>(item: () => T): T[] {
    this.expect("(");
    const out = [item()];
    while (this.peek(",")) {
      this.at++;
      out.push(item());
    }
    this.expect(")");
    return out;
  }

  private position(): Position {
    const values: number[] = [];
    for (;;) {
      this.skip();
      const m = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(this.s.slice(this.at, this.at + 40));
      if (!m) break;
      values.push(Number(m[0]));
      this.at += m[0].length;
    }
    const n = values.length;
    if (n < 2 || n > 4) throw this.fail("a position of 2 to 4 numbers");
    // x y | x y z | x y m (with M) | x y z m
    const z = n === 4 || (n === 3 && !(this.hasM && !this.hasZ));
    return z
      ? [values[0] as number, values[1] as number, values[2] as number]
      : [values[0] as number, values[1] as number];
  }
}
