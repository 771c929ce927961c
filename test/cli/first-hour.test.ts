/** What a new user sees from `run` and `backfill` without a terminal (issue 27 items 7 and 8). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli as spawnCli, runCliHere as runCli } from "../helpers/cli.js";
import { writeFeedProject } from "../helpers/source-corpus.js";

describe("run and backfill say what they did in one line, and nothing with --quiet", () => {
  let store: string;
  beforeAll(() => {
    store = mkdtempSync(join(tmpdir(), "georefresh-first-hour-"));
  });
  afterAll(() => rmSync(store, { recursive: true, force: true }));

  it("run prints its partition's outcome on stdout without a terminal; --quiet prints nothing", async () => {
    const first = await runCli([
      "run",
      "--dataset",
      "us-counties",
      "--region",
      "RI",
      "--date",
      "2026-01-01",
      "--store",
      store,
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^us-counties RI 2026-01-01: promoted: published artifacts\/us-counties\/region=RI\/date=2026-01-01\/[0-9a-f]{16}\.parquet \(5 rows\)\n$/,
    );
    const again = await runCli([
      "run",
      "--dataset",
      "us-counties",
      "--region",
      "RI",
      "--date",
      "2026-01-01",
      "--store",
      store,
    ]);
    expect(again.stdout).toMatch(/^us-counties RI 2026-01-01: unchanged: /);
    const quiet = await runCli([
      "run",
      "--dataset",
      "us-counties",
      "--region",
      "RI",
      "--date",
      "2026-01-01",
      "--store",
      store,
      "--quiet",
    ]);
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, "", ""]);
    const backfill = await runCli([
      "backfill",
      "--dataset",
      "us-counties",
      "--regions",
      "RI",
      "--from",
      "2026-01-01",
      "--to",
      "2026-02-28",
      "--store",
      store,
      "--quiet",
    ]);
    expect([backfill.code, backfill.stdout, backfill.stderr]).toEqual([0, "", ""]);
    // Without a terminal a no-op backfill prints its summary, not a line per partition; --verbose prints those.
    const window = ["backfill", "--dataset", "us-counties", "--regions", "RI", "--from", "2026-01-01"];
    const plain = await runCli([...window, "--to", "2026-02-28", "--store", store]);
    expect([plain.code, plain.stdout, plain.stderr]).toEqual([
      0,
      expect.stringMatching(/^us-counties: 2 partitions: 2 unchanged; snapshot [0-9a-f]{16}\n$/),
      "",
    ]);
    const verbose = await runCli([...window, "--to", "2026-02-28", "--store", store, "--verbose"]);
    expect(verbose.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^1\/2 unchanged us-counties RI 2026-0[12]-01: /),
      expect.stringMatching(/^2\/2 unchanged us-counties RI 2026-0[12]-01: /),
    ]);
    // A window whose last date has not ended is warned about (the dry run writes nothing).
    const future = await runCli([...window, "--to", "2099-01-31", "--store", store, "--dry-run"]);
    expect(future.stderr).toMatch(
      /^georefresh: warning: --to 2099-01-31 has not ended yet \(today is \d{4}-\d{2}-\d{2} UTC; its month ends 2099-01-31\): its data may still change/,
    );
    // ls names its columns.
    const ls = await runCli(["ls", "us-counties", "--store", store]);
    expect(ls.stdout.split("\n")[0]).toBe("region\tdate\tstatus\trows\tkey\tchanged_at");
    expect(ls.stdout.split("\n")[1]).toMatch(/^RI\t2026-01-01\tcurrent\t5\t[0-9a-f]{16}\t2026-/);
  }, 60_000);

  it("a bad --date is --date's mistake, not --from's", async () => {
    const r = await runCli([
      "run",
      "--dataset",
      "us-counties",
      "--region",
      "RI",
      "--date",
      "2026-02-30",
      "--store",
      store,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--date 2026-02-30 is not a calendar date YYYY-MM-DD/);
    expect(r.stderr).not.toMatch(/--from/);
  });

  it("after an unknown option the suggestion stays on screen: no help text buries it", async () => {
    const r = await runCli([
      "backfill",
      "--dataset",
      "us-counties",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-01",
      "--form",
      "x",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--form'\n(Did you mean --from?)\n(add --help to see every option)\n");
  });

  it("report, verify and a gc with nothing to do each say so in one line", async () => {
    const html = join(store, "..", `report-${process.pid}.html`);
    const report = await runCli(["report", "us-counties", "--store", store, "--html", html]);
    expect(report.stdout).toBe(`wrote ${html}: us-counties, 1 region × 2 dates\n`);
    rmSync(html, { force: true });
    const verify = await runCli(["verify", "us-counties", "--region", "RI", "--date", "2026-01-01", "--store", store]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(
      /^verified us-counties RI 2026-01-01: two fresh runs gave the same key [0-9a-f]{16} and the bytes the store holds\n$/,
    );
    // An empty TMPDIR: other suites' killed runs leave temp folders gc would rightly offer to remove.
    const tmp = mkdtempSync(join(tmpdir(), "georefresh-first-hour-tmp-"));
    const gc = await runCli(["gc", "--store", store], { TMPDIR: tmp });
    rmSync(tmp, { recursive: true, force: true });
    expect([gc.code, gc.stdout]).toEqual([0, "nothing to remove\n"]);
  }, 60_000);

  it("a selection that matches nothing says so on stderr, for urls and read", async () => {
    const urls = await runCli(["urls", "us-counties", "--store", store, "--bbox", "0,0,1,1"]);
    expect([urls.code, urls.stdout]).toEqual([0, ""]);
    expect(urls.stderr).toBe("georefresh: no partition of us-counties matches --bbox 0,0,1,1\n");
    const read = await runCli(["read", "us-counties", "--store", store, "--bbox", "0,0,1,1", "--format", "ndjson"]);
    expect(read.stderr).toBe("georefresh: no partition of us-counties matches --bbox 0,0,1,1\n");
    const some = await runCli(["urls", "us-counties", "--store", store, "--bbox", "-72,41,-71,42"]);
    expect(some.stdout.trim().split("\n")).toHaveLength(2);
    expect(some.stderr).toBe("");
  }, 60_000);

  it("--latest-date is the latest logical date; --latest still works and says it is deprecated", async () => {
    const now = await runCli(["urls", "us-counties", "--store", store, "--latest-date"]);
    expect(now.stderr).toBe("");
    expect(now.stdout.trim().split("\n")).toEqual([expect.stringMatching(/region=RI\/date=2026-02-01\//)]);
    const old = await runCli(["urls", "us-counties", "--store", store, "--latest"]);
    expect(old.stdout).toBe(now.stdout);
    expect(old.stderr).toBe(
      "georefresh: --latest is deprecated: use --latest-date (each region's latest logical date)\n",
    );
    const help = await runCli(["urls", "--help"]);
    expect(help.stdout).toMatch(
      /--latest-date\s+only the latest logical date of each region \(not\s+--snapshot latest/,
    );
    expect(help.stdout).not.toMatch(/--latest\s/);
  }, 60_000);

  it("ls, show, urls, read and changes read from --store alone, in a directory with no config", async () => {
    const away = mkdtempSync(join(tmpdir(), "georefresh-no-config-"));
    try {
      const here = (...args: string[]) => spawnCli(args, {}, away);
      const urls = await here("urls", "us-counties", "--store", store, "--latest-date");
      expect([urls.code, urls.stderr]).toEqual([0, ""]);
      expect(urls.stdout).toMatch(/region=RI\/date=2026-02-01\/[0-9a-f]{16}\.parquet\n$/);
      const ls = await here("ls", "us-counties", "--store", store);
      expect(ls.stdout.split("\n")[0]).toMatch(/^region\tdate\tstatus\trows/);
      expect(ls.stdout).toMatch(/\nRI\t2026-02-01\tcurrent\t5\t/);
      const show = await here("show", "us-counties", "--store", store, "--region", "RI", "--latest-date");
      expect((JSON.parse(show.stdout) as { partition: { logical_date: string } }).partition.logical_date).toBe(
        "2026-02-01",
      );
      const read = await here("read", "us-counties", "--store", store, "--region", "RI", "--latest-date");
      expect((JSON.parse(read.stdout) as { features: unknown[] }).features).toHaveLength(5);
      const changes = await here(
        "changes",
        "us-counties",
        "--store",
        store,
        "--region",
        "RI",
        "--from",
        "2026-01-01",
        "--to",
        "2026-02-01",
      );
      // It reaches the store's manifests (counties carry no natural key, so there is no row-level change to show).
      expect([changes.code, changes.stderr]).toEqual([
        1,
        'georefresh: us-counties RI 2026-02-01 has no natural key: its task names none (key: ["…"]), so no row-level change is recorded\n',
      ]);
      // A name the store does not hold, and no --store at all: exit 2, saying what to give.
      const none = await here("ls", "us-countie", "--store", store);
      expect([none.code, none.stderr]).toEqual([
        2,
        `georefresh: ${store}/manifests/us-countie holds no partitions of "us-countie"; check the dataset's name and --store\n`,
      ]);
      const bare = await here("ls", "us-counties");
      expect(bare.code).toBe(2);
      expect(bare.stderr).toMatch(/no georefresh\.config\.json in .*: give --store \(a directory or URL\)/);
    } finally {
      rmSync(away, { recursive: true, force: true });
    }
  }, 60_000);

  it("S3 with no credentials anywhere says none were found, not that the store refused them", async () => {
    const none = "/nonexistent/georefresh-aws";
    const r = await spawnCli(
      ["ls", "us-counties", "--store", "s3://some-bucket?endpoint=http://127.0.0.1:9&region=us-east-1"],
      {
        AWS_ACCESS_KEY_ID: "",
        AWS_SECRET_ACCESS_KEY: "",
        AWS_SESSION_TOKEN: "",
        AWS_PROFILE: "",
        AWS_SHARED_CREDENTIALS_FILE: none,
        AWS_CONFIG_FILE: none,
        AWS_WEB_IDENTITY_TOKEN_FILE: "",
        AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: "",
        AWS_CONTAINER_CREDENTIALS_FULL_URI: "",
        AWS_EC2_METADATA_DISABLED: "true",
      },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no AWS credentials were found \(the SDK looked in AWS_ACCESS_KEY_ID/);
    expect(r.stderr).not.toMatch(/refused/);
  }, 60_000);

  it("--help marks the options a command cannot run without", async () => {
    const help = await runCli(["run", "--help"]);
    expect(help.stdout).toMatch(/--dataset <name> +dataset from the config \(default: its only one\)\n/);
    expect(help.stdout).toMatch(/--date <date> +logical date, YYYY-MM-DD \(required\)\n/);
    expect(help.stdout).not.toMatch(/--store <url>.*\(required\)/);
    const show = await runCli(["show", "--help"]);
    expect(show.stdout).toMatch(/--region <region> +the region \(required\)\n/);
  });

  it("--dataset and run's --region default to the only one there is, and name the choices when there are several; one partition is not 'partitions'", async () => {
    const many = await runCli(["run", "--region", "RI", "--date", "2026-01-01", "--store", store]);
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(
      /--dataset is required: the datasets in \S+georefresh\.config\.json are us-counties, .*city-catchments.*; name one/,
    );
    const regions = await runCli(["run", "--dataset", "us-counties", "--date", "2026-01-01", "--store", store]);
    expect(regions.code).toBe(2);
    expect(regions.stderr).toMatch(
      /--region is required: the regions of us-counties are [A-Z]{2}, [A-Z]{2}, .*RI.*; name one/,
    );
    const dir = mkdtempSync(join(tmpdir(), "georefresh-only-one-"));
    try {
      const config = writeFeedProject(dir, ["weld"]);
      const only = await runCli(["run", "--config", config, "--date", "2026-01-01"]);
      expect(only.code, only.stderr).toBe(0);
      expect(only.stdout).toMatch(/^parcels weld 2026-01-01: promoted: /);
      const window = await runCli(["backfill", "--config", config, "--from", "2026-01-01", "--to", "2026-02-01"]);
      expect(window.code, window.stderr).toBe(0);
      expect(window.stdout).toMatch(/^parcels: 1 partition: 1 promoted/);
      // One partition is one partition, in the sink's lines too.
      const gpkg = join(dir, "parcels.gpkg");
      const dry = await runCli(["sink", "parcels", "--config", config, "--to", gpkg, "--dry-run"]);
      expect(dry.stdout).toMatch(/: would apply 1 partition, 0 unchanged; nothing changed/);
      const sunk = await runCli(["sink", "parcels", "--config", config, "--to", gpkg]);
      expect(sunk.code, sunk.stderr).toBe(0);
      expect(sunk.stdout).toMatch(/: 1 partition applied, 0 unchanged; rows \d+ inserted/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
