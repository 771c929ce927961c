import type { Geometry } from "../../src/geo/geometry.js";

const square = (x0: number, y0: number, s: number) => [
  [x0, y0],
  [x0 + s, y0],
  [x0 + s, y0 + s],
  [x0, y0 + s],
  [x0, y0],
];

/** Invalid geometries, each with the fragment of the verdict that must name its problem. */
export const INVALID: { name: string; geometry: Geometry; kind: string; reason: RegExp }[] = [
  {
    name: "bow-tie",
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      ],
    },
    kind: "invalid",
    reason: /Self-intersection/,
  },
  {
    name: "hole outside shell",
    geometry: { type: "Polygon", coordinates: [square(0, 0, 10), square(20, 20, 1)] },
    kind: "invalid",
    reason: /Hole lies outside shell/,
  },
  {
    name: "hole crossing shell",
    geometry: {
      type: "Polygon",
      coordinates: [
        square(0, 0, 10),
        [
          [5, 5],
          [15, 5],
          [15, 6],
          [5, 6],
          [5, 5],
        ],
      ],
    },
    kind: "invalid",
    reason: /Self-intersection/,
  },
  {
    name: "nested shells in a MultiPolygon",
    geometry: { type: "MultiPolygon", coordinates: [[square(0, 0, 10)], [square(2, 2, 2)]] },
    kind: "invalid",
    reason: /Nested shells/,
  },
  {
    name: "overlapping MultiPolygon parts",
    geometry: { type: "MultiPolygon", coordinates: [[square(0, 0, 10)], [square(5, 5, 10)]] },
    kind: "invalid",
    reason: /Self-intersection/,
  },
  {
    name: "self-touching ring",
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [5, 0],
          [0, 10],
          [0, 0],
        ],
      ],
    },
    kind: "invalid",
    reason: /Self-intersection/,
  },
  {
    name: "spike",
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [10, 20],
          [10, 10],
          [0, 10],
          [0, 0],
        ],
      ],
    },
    kind: "invalid",
    reason: /Self-intersection/,
  },
  {
    name: "NaN coordinate",
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [Number.NaN, 1],
          [0, 0],
        ],
      ],
    },
    kind: "non-finite",
    reason: /non-finite coordinate/,
  },
  {
    name: "Infinity coordinate",
    geometry: { type: "Point", coordinates: [Number.POSITIVE_INFINITY, 1] },
    kind: "non-finite",
    reason: /non-finite coordinate/,
  },
  {
    name: "unclosed ring",
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 10],
          [0, 10],
        ],
      ],
    },
    kind: "invalid",
    // Said in a user's words, not GEOS's (a JTS port's "IllegalArgumentException: … closed linestring").
    reason: /^a ring is not closed \(its last point is not its first\): close each ring/,
  },
  {
    name: "ring with too few points",
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [0, 0],
        ],
      ],
    },
    kind: "invalid",
    reason: /^a ring has 3 points: a closed ring needs at least 4|Too few points/,
  },
  {
    name: "line of one point",
    geometry: { type: "LineString", coordinates: [[0, 0]] },
    kind: "invalid",
    reason: /^a line has 1 point: a line needs at least 2$/,
  },
  {
    name: "lon/lat out of range",
    geometry: { type: "Point", coordinates: [200, 10] },
    kind: "domain",
    reason: /outside lon\/lat \[-180,180\]×\[-90,90\]/,
  },
];

/** Valid edge cases that a checker must not flag. */
export const VALID: { name: string; geometry: Geometry }[] = [
  {
    name: "hole touching shell at one point",
    geometry: {
      type: "Polygon",
      coordinates: [
        square(0, 0, 10),
        [
          [0, 5],
          [5, 3],
          [5, 7],
          [0, 5],
        ],
      ],
    },
  },
  {
    name: "duplicate consecutive points",
    geometry: {
      type: "Polygon",
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 0],
          [10, 10],
          [0, 10],
          [0, 0],
        ],
      ],
    },
  },
  {
    name: "MultiPolygon parts touching at one point",
    geometry: { type: "MultiPolygon", coordinates: [[square(0, 0, 10)], [square(10, 10, 10)]] },
  },
  { name: "empty point", geometry: { type: "Point", coordinates: [] } },
  { name: "empty polygon", geometry: { type: "Polygon", coordinates: [] } },
  { name: "empty multipolygon", geometry: { type: "MultiPolygon", coordinates: [] } },
  { name: "empty collection", geometry: { type: "GeometryCollection", geometries: [] } },
  {
    name: "3D line",
    geometry: {
      type: "LineString",
      coordinates: [
        [0, 0, 1],
        [1, 1, 2],
      ],
    },
  },
];
