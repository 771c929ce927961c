/**
 * JSON numbers as GDAL reads them: an integer literal past 2^53 keeps every digit (a bigint, for an int64 column)
 * where JSON.parse would round it. Feeds carry 64-bit ids (OSM, parcel numbers); rounding one merges two keys.
 */

const LONG_INTEGER = /^-?\d{16,}$/;

/** A JSON number's text → a number, or a bigint when it is an integer a double cannot hold. */
export function exactNumber(text: string): number | bigint {
  if (LONG_INTEGER.test(text)) {
    const big = BigInt(text);
    if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER)) return big;
  }
  return Number(text);
}

/** Whether a JSON text may hold an integer a double cannot (a run of 16 digits somewhere). */
export function mayHoldLongIntegers(text: string): boolean {
  return /\d{16}/.test(text);
}

/** The deepest nesting a feed's JSON may have; a GeometryCollection of collections deeper than this is hostile. */
export const MAX_JSON_DEPTH = 256;

/** Whether a JSON text nests arrays and objects deeper than `max` (brackets inside strings do not count). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let brackets = 0;
  for (let i = 0; i < text.length && brackets <= max; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) brackets++;
  }
  if (brackets <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > max) return true;
    } else if (c === "]" || c === "}") depth--;
  }
  return false;
}

/** JSON.parse, but integers past 2^53 as bigints (see exactNumber), and nesting beyond MAX_JSON_DEPTH refused. */
export function parseJsonExact(text: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${at}`);
  };
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at] as string)) at++;
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_JSON_DEPTH) fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    space();
    const c = text[at];
    if (c === "{") {
      at++;
      const out: Record<string, unknown> = {};
      space();
      if (text[at] === "}") return (at++, out);
      for (;;) {
        space();
        if (text[at] !== '"') fail("expected a property name");
        const key = string();
        space();
        if (text[at++] !== ":") fail("expected ':'");
        Object.defineProperty(out, key, {
          value: value(depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        space();
        const d = text[at++];
        if (d === "}") return out;
        if (d !== ",") fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      at++;
      const out: unknown[] = [];
      space();
      if (text[at] === "]") return (at++, out);
      for (;;) {
        out.push(value(depth + 1));
        space();
        const d = text[at++];
        if (d === "]") return out;
        if (d !== ",") fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at, at + 400));
    if (!m) return fail("unexpected token");
    at += m[0].length;
    return m[0] === "true" ? true : m[0] === "false" ? false : m[0] === "null" ? null : exactNumber(m[0]);
  };
  const string = (): string => {
    const start = at;
    at++;
    for (; at < text.length; at++) {
      const c = text[at];
      if (c === "\\") at++;
      else if (c === '"') break;
    }
    if (at >= text.length) fail("unterminated string");
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const out = value(0);
  space();
  if (at < text.length) fail("unexpected text after the value");
  return out;
}
