import { manifestPrefix, NAME } from "../manifest/layout.js";
import type { Bbox } from "../geo/bbox.js";
import type { ObjectStore } from "../store/types.js";
import type { DatasetView } from "../views/reader.js";

/**
 * The datasets a store holds, by a listing of manifests/ that skips past each dataset's own keys: the only
 * collection ids the server knows, so a path can only ever name one of them.
 */
export async function datasetsIn(store: ObjectStore): Promise<string[]> {
  const names: string[] = [];
  const prefix = "manifests/";
  for (let startAfter: string | undefined; ;) {
    let name: string | undefined;
    for await (const e of store.list(prefix, startAfter === undefined ? {} : { startAfter })) {
      name = e.key.slice(prefix.length).split("/")[0];
      break;
    }
    if (name === undefined) return names;
    if (NAME.test(name)) names.push(name);
    // '0' follows '/' in byte order: resume after everything under "<name>/".
    startAfter = `${manifestPrefix(name).replace(/\/$/, "")}0`;
  }
}

/** The lon/lat box of every partition of the view; undefined when none has rows. */
export function extentOf(view: DatasetView): Bbox | undefined {
  const boxes = view.partitions.flatMap((p) => (p.bboxLonLat ? [p.bboxLonLat] : []));
  if (boxes.length === 0) return undefined;
  return [
    Math.min(...boxes.map((b) => b[0])),
    Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])),
    Math.max(...boxes.map((b) => b[3])),
  ];
}

/** A collection's description (OGC API – Features, /collections/{id}): its extent from the view's manifests. */
export function collectionDoc(view: DatasetView, base: string): Record<string, unknown> {
  const bbox = extentOf(view) ?? [-180, -90, 180, 90];
  const dates = view.partitions.map((p) => p.date).sort();
  const self = `${base}/collections/${view.dataset}`;
  return {
    id: view.dataset,
    title: view.dataset,
    itemType: "feature",
    crs: ["http://www.opengis.net/def/crs/OGC/1.3/CRS84"],
    extent: {
      spatial: { bbox: [bbox], crs: "http://www.opengis.net/def/crs/OGC/1.3/CRS84" },
      temporal: { interval: [[dates[0] ?? null, dates.at(-1) ?? null]] },
    },
    links: [
      { href: self, rel: "self", type: "application/json", title: view.dataset },
      { href: `${self}/items`, rel: "items", type: "application/geo+json", title: `${view.dataset}'s features` },
      {
        href: `${self}/map`,
        rel: "alternate",
        type: "text/html",
        title: "a map of its vector tiles, with a date slider",
      },
      {
        href: `${self}/tiles/WebMercatorQuad/{z}/{x}/{y}`,
        rel: "tiles",
        type: "application/vnd.mapbox-vector-tile",
        templated: true,
        title: "Mapbox Vector Tiles, one layer named after the dataset",
      },
    ],
  };
}
