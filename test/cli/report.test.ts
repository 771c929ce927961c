/**
 * `georefresh report` in a real browser (Debian's chromium, headless, through playwright-core): the status grid
 * has one cell per region × logical date, coloured by the state its manifest has; the map has drawn paths; the
 * page fetches nothing. The screenshot is kept as test-output/report.png.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { STATE_COLOURS } from "../../src/report/html.js";
import { FsStore } from "../../src/store/fs.js";
import { runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints, writePointsConfig } from "../helpers/points-task.js";

const CHROMIUM = process.env.GEOREFRESH_CHROMIUM ?? "/usr/bin/chromium";
const OUTPUT = fileURLToPath(new URL("../../test-output/", import.meta.url));
const REGIONS = ["east", "north", "south"];
const DATES = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"];

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;

describe("georefresh report", () => {
  let dir: string;
  let store: FsStore;
  let html: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-report-"));
    const input = join(dir, "points.json");
    writePoints(input, 24);
    store = new FsStore(join(dir, "store"));
    const run = (o: { from: string; to: string; regions: string[]; overridePlausibility?: boolean }) =>
      backfill({
        store,
        dataset: "r",
        versions: VERSIONS,
        threads: 0,
        task: pointsTask(input, { regions: REGIONS }),
        ...o,
      });
    // Every state: south never built on 01-03; east retired (it leaves the complete region list); north's 01-05
    // promoted over plausibility's objection (four times the rows).
    await run({ from: "2026-01-01", to: "2026-01-05", regions: ["north", "east"] });
    await run({ from: "2026-01-01", to: "2026-01-02", regions: ["south"] });
    await run({ from: "2026-01-04", to: "2026-01-05", regions: ["south"] });
    writePoints(input, 96);
    const over = await run({ from: "2026-01-05", to: "2026-01-05", regions: ["north"], overridePlausibility: true });
    expect(over.counts.promoted).toBe(1);
    writePoints(input, 24);
    await backfill({
      store,
      dataset: "r",
      versions: VERSIONS,
      threads: 0,
      task: pointsTask(input, { regions: ["north", "south"] }),
      from: "2026-01-01",
      to: "2026-01-02",
    });
    const config = writePointsConfig(dir, input, { r: {} });
    html = join(dir, "report.html");
    const cli = await runCli(["report", "r", "--html", html, "--config", config, "--json"]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ regions: 3, dates: 5, cells: 15, problems: 0 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("renders headless: a cell per partition in its state's colour, a drawn map, nothing fetched", async () => {
    const expected = new Map<string, string>();
    for (const region of REGIONS)
      for (const date of DATES) {
        const m = (await readManifest(store, manifestKey({ dataset: "r", region, date })))?.manifest;
        expected.set(
          `${region}/${date}`,
          !m?.current
            ? "never-built"
            : m.retired
              ? "retired"
              : m.current.plausibility.status === "overridden"
                ? "overridden"
                : "current",
        );
      }
    expect(new Set(expected.values())).toEqual(new Set(["current", "never-built", "retired", "overridden"]));

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
      const requests: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      await page.goto(pathToFileURL(html).href);
      const cells = await page.$$eval("#status .cell", (els) =>
        els.map((e) => ({
          key: `${e.getAttribute("data-region")}/${e.getAttribute("data-date")}`,
          state: e.getAttribute("data-state"),
          colour: (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
          ).getComputedStyle(e).backgroundColor,
          title: e.getAttribute("title") ?? "",
        })),
      );
      expect(cells).toHaveLength(REGIONS.length * DATES.length);
      for (const c of cells) {
        expect(c.state, c.key).toBe(expected.get(c.key));
        expect(c.colour, c.key).toBe(rgb(STATE_COLOURS[c.state as keyof typeof STATE_COLOURS]));
        if (c.state === "current") expect(c.title).toMatch(/: current, 12 rows, promoted \d{4}-\d{2}-\d{2}T/);
      }
      const paths = await page.$$eval("svg.map path.footprint", (els) => els.map((e) => e.getAttribute("d") ?? ""));
      // One footprint per region with a current partition left (east is retired only on the dates of that run).
      const drawn = REGIONS.filter((r) =>
        DATES.some((d) => ["current", "overridden"].includes(expected.get(`${r}/${d}`) as string)),
      );
      expect(paths).toHaveLength(drawn.length);
      for (const d of paths) expect(d.match(/M/g)?.length ?? 0).toBeGreaterThanOrEqual(12); // a square per point
      // Each region is filled in the colour of the state of the partition drawn (north's latest is overridden).
      const fills = await page.$$eval("svg.map g.region", (els) =>
        els.map((e) => ({
          key: `${e.getAttribute("data-region")}/${e.getAttribute("data-date")}`,
          fill: e.querySelector("path")?.getAttribute("fill"),
        })),
      );
      expect(fills.map((f) => f.key).sort()).toEqual(
        drawn
          .map(
            (r) =>
              `${r}/${[...DATES].reverse().find((d) => ["current", "overridden"].includes(expected.get(`${r}/${d}`) as string))}`,
          )
          .sort(),
      );
      for (const f of fills)
        expect(f.fill, f.key).toBe(STATE_COLOURS[expected.get(f.key) as keyof typeof STATE_COLOURS]);
      expect(fills.some((f) => expected.get(f.key) === "overridden")).toBe(true);
      const legend = await page.locator("#map-legend").innerText();
      expect(legend).toMatch(/current/);
      expect(legend).toMatch(/overridden/);
      // A scale bar of a round length, and a graticule; no bbox outlines (the old map's dashed edges).
      expect(Number(await page.locator("svg.map g.scale").getAttribute("data-metres"))).toBeGreaterThan(0);
      expect(await page.locator("svg.map g.graticule path.grid").count()).toBe(1);
      expect(await page.locator("svg.map rect.bbox").count()).toBe(0);
      expect(await page.locator("#status .trend svg polyline").count()).toBeGreaterThanOrEqual(4);
      expect(requests).toEqual([pathToFileURL(html).href]);
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, "report.png"), fullPage: true });
      expect(statSync(join(OUTPUT, "report.png")).size).toBeGreaterThan(10_000);
    } finally {
      await browser.close();
    }
  });
});
