import type { AddressInfo } from "node:net";
import { InvalidArgumentError } from "commander";
import type { Command } from "commander";
import { action } from "../action.js";
import { CONFIG_DEFAULT, CONFIG_HELP, openReading, UsageError, wholeNumber } from "../context.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { checkLocalStore } from "../reading.js";
import { EXIT } from "../exit-codes.js";
import { err, out } from "../output.js";
import { datasetsIn } from "../../serve/collections.js";
import { DEFAULT_CACHE, DEFAULT_MAX_READ, featuresServer } from "../../serve/server.js";
import { loadStore } from "../../store/backends.js";
import { parseBytes } from "../../sizes.js";

const HELP = `
Serves the store's datasets read-only as OGC API – Features (GeoJSON, and HTML for a browser) and vector tiles:
  /collections/{dataset}/items        bbox (lon/lat), limit (up to 10000; next pages by the "next" link),
                                      datetime (an instant: the dataset as it was then; logical dates or an
                                      interval of them: those partitions; else each region's latest),
                                      snapshot (an id, or latest), and equality on a column (?zoning=R1)
  /collections/{dataset}/items/{id}   one feature by the dataset's natural key
  /collections/{dataset}/tiles/WebMercatorQuad/{z}/{x}/{y}   Mapbox Vector Tiles (same datetime, snapshot, filters)
  /collections/{dataset}/map          a map of the tiles in your browser, with a slider over the logical dates
GDAL (OAPIF:), QGIS, MapLibre and any OGC API client read it. Collections are the datasets the store held when
the server started. docs/serve.md.

  georefresh serve                      # then open http://127.0.0.1:8080/collections/us-counties/map
  ogrinfo OAPIF:http://127.0.0.1:8080/collections/us-counties -so -al

Exit codes: 0 stopped by Ctrl-C or SIGTERM; 2 usage (a port in use); 3 the store cannot be used.`;

/** `serve`: the store's datasets as OGC API – Features, until stopped. */
export function registerServe(program: Command): void {
  program
    .command("serve")
    .description(DESCRIPTIONS.serve)
    .option("--config <path>", `${CONFIG_HELP} (default: ${CONFIG_DEFAULT}; not needed with --store)`)
    .option("--store <url>", "the store to serve (default: the config's)")
    .option("--port <n>", "the port (0: any free one)", wholeNumber(0, 65535), 8080)
    .option("--host <address>", "the address to listen on (anything but the loopback is said loudly)", "127.0.0.1")
    .option(
      "--max-read <size>",
      "the most artifact data one request reads, like 256MiB or 1GiB (a bare number is bytes); a tile or partition past it is refused, saying what to narrow (default: 256MiB)",
      size("--max-read"),
    )
    .option(
      "--cache <size>",
      "how much decoded data, by artifact size, is kept between requests, like 512MiB (default: 512MiB)",
      size("--cache"),
    )
    .option(
      "--recheck <seconds>",
      "how long one read of a dataset's manifests serves requests: a promotion is seen within it (0: every request)",
      wholeNumber(0),
      1,
    )
    .option(
      "--allowed-host <name>",
      "a host name clients reach the server by, besides the loopback's and IP addresses (repeat it; * for any, behind a proxy that checks Host): any other name is answered 421, so a page that rebinds its DNS name to this machine reads nothing",
      (name: string, names: string[]) => [...names, name.trim().toLowerCase()],
      [] as string[],
    )
    .option("--quiet", "print nothing but errors")
    .addHelpText("after", HELP)
    .action(
      action(
        async (opts: {
          config?: string;
          store?: string;
          port: number;
          host: string;
          maxRead?: number;
          cache?: number;
          recheck: number;
          allowedHost: string[];
          quiet?: boolean;
        }) => {
          const { store: url, config } = await openReading(opts);
          checkLocalStore(url, config !== undefined, "georefresh backfill");
          const store = await loadStore(url);
          const datasets = await datasetsIn(store);
          const loopback = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(opts.host);
          const own = () => `http://${hostInUrl(opts.host)}:${(server.address() as AddressInfo).port}`;
          const server = featuresServer({
            store,
            datasets,
            maxRead: opts.maxRead ?? DEFAULT_MAX_READ,
            cacheBytes: opts.cache ?? DEFAULT_CACHE,
            recheckMs: opts.recheck * 1000,
            // The name it was told to listen on is one clients use.
            allowedHosts: [...opts.allowedHost, opts.host.toLowerCase()],
            // Off the loopback, links name the address the client used (a plain host[:port]), as they reach it.
            base: (host) =>
              !loopback && host && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/.test(host)
                ? `http://${host}`
                : own(),
            onError: (error, path) =>
              err(`georefresh: ${path}: ${error instanceof Error ? error.message : String(error)}\n`),
          });
          await new Promise<void>((resolve, reject) => {
            server.once("error", (error: NodeJS.ErrnoException) =>
              reject(
                error.code === "EADDRINUSE"
                  ? new UsageError(
                      `port ${opts.port} on ${opts.host} is in use: give another with --port (0: any free one)`,
                    )
                  : error,
              ),
            );
            server.listen(opts.port, opts.host, resolve);
          });
          const port = (server.address() as AddressInfo).port;
          if (!loopback)
            err(
              `georefresh: WARNING: serving on ${opts.host}, not the loopback: anyone who reaches this machine on port ${port} reads every dataset of the store (read-only)\n`,
            );
          if (!opts.quiet)
            out(
              `serving ${datasets.length} collection${datasets.length === 1 ? "" : "s"} (${datasets.join(", ") || "none yet: backfill a dataset into this store, then start serve again"}) at http://${hostInUrl(opts.host)}:${port}/ (Ctrl-C to stop)${datasets[0] ? `; a map: http://${hostInUrl(opts.host)}:${port}/collections/${datasets[0]}/map` : ""}\n`,
            );
          await new Promise<void>((resolve) => {
            const stop = () => server.close(() => resolve());
            process.once("SIGINT", stop);
            process.once("SIGTERM", stop);
          });
          server.closeAllConnections();
          await store.close();
          return EXIT.ok;
        },
      ),
    );
}

/** A size option (256MiB, 1GiB, 500MB): bytes, or commander's usage error saying how to write one. */
const size = (what: string) => (text: string) => {
  try {
    return parseBytes(text, what);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

const hostInUrl = (host: string) => (host.includes(":") ? `[${host}]` : host);
