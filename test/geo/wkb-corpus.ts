import type { Geometry } from "../../src/geo/geometry.js";

/** Every geometry type, XY and XYZ, with empties. */
export const ALL: Geometry[] = [
  { type: "Point", coordinates: [1.5, -2.25] },
  { type: "Point", coordinates: [1, 2, 3] },
  { type: "Point", coordinates: [] },
  {
    type: "LineString",
    coordinates: [
      [0, 0],
      [1, 1],
      [2, 0],
    ],
  },
  { type: "LineString", coordinates: [] },
  {
    type: "Polygon",
    coordinates: [
      [
        [0, 0],
        [4, 0],
        [4, 4],
        [0, 4],
        [0, 0],
      ],
      [
        [1, 1],
        [2, 1],
        [2, 2],
        [1, 1],
      ],
    ],
  },
  {
    type: "Polygon",
    coordinates: [
      [
        [0, 0, 5],
        [1, 0, 5],
        [1, 1, 6],
        [0, 0, 5],
      ],
    ],
  },
  { type: "Polygon", coordinates: [] },
  {
    type: "MultiPoint",
    coordinates: [
      [0, 0],
      [3, 4],
    ],
  },
  {
    type: "MultiLineString",
    coordinates: [
      [
        [0, 0],
        [1, 1],
      ],
      [
        [2, 2],
        [3, 3],
      ],
    ],
  },
  {
    type: "MultiPolygon",
    coordinates: [
      [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 0],
        ],
      ],
      [
        [
          [5, 5],
          [6, 5],
          [6, 6],
          [5, 5],
        ],
      ],
    ],
  },
  { type: "MultiPolygon", coordinates: [] },
  {
    type: "GeometryCollection",
    geometries: [
      { type: "Point", coordinates: [9, 9] },
      {
        type: "LineString",
        coordinates: [
          [0, 0],
          [1, 2],
        ],
      },
    ],
  },
  { type: "GeometryCollection", geometries: [] },
];
