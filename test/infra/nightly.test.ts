/**
 * The nightly examples run as their schedulers would run them: the crontab line through cron's own rules (`%`
 * ends the command, `\%` is a literal one, the crontab's PATH= line, /bin/sh, an empty environment) and the
 * systemd pair verified by `systemd-analyze verify` and its ExecStart run through /bin/sh after systemd's `%%`
 * unescaping. Each refreshes a real undated feed and exits 0; no warning. systemd itself is not started here (no
 * systemd runs on this machine): the units are verified, the timer's calendar checked by `systemd-analyze calendar`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_MAIN } from "../helpers/built-cli.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "georefresh-nightly-"));
const home = join(dir, "srv");
const bin = join(dir, "bin");

/** A crontab's environment lines and its one job, the command split by cron's `%` rule. */
function parseCrontab(text: string): { env: Record<string, string>; fields: string[]; command: string; stdin: string } {
  const env: Record<string, string> = {};
  const jobs: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    const assignment = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (assignment) env[assignment[1] as string] = assignment[2] as string;
    else jobs.push(line);
  }
  expect(jobs).toHaveLength(1);
  const parts = (jobs[0] as string).trim().split(/\s+/);
  const fields = parts.slice(0, 5);
  const rest = (jobs[0] as string).trim().replace(/^(\S+\s+){5}/, "");
  // cron(8): an unescaped % becomes a newline; what follows the first is the command's stdin; \% is a %.
  let command = "";
  let stdin: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i] as string;
    if (c === "\\" && rest[i + 1] === "%") {
      (stdin === undefined ? (command += "%") : (stdin += "%"), i++);
    } else if (c === "%") {
      if (stdin === undefined) stdin = "";
      else stdin += "\n";
    } else if (stdin === undefined) command += c;
    else stdin += c;
  }
  return { env, fields, command, stdin: stdin ?? "" };
}

function cronField(field: string, lo: number, hi: number): boolean {
  return field.split(",").every((part) => {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) return false;
    const nums = [m[2], m[3], m[4]].filter((x) => x !== undefined).map(Number);
    return nums.slice(0, m[4] ? -1 : undefined).every((n) => n >= lo && n <= hi);
  });
}

/** Runs a command as cron or systemd's sh would: an empty environment but for what the scheduler sets. */
function runAsScheduler(command: string, env: Record<string, string>, stdin = "") {
  return spawnSync("/bin/sh", ["-c", command], {
    env: { HOME: home, LOGNAME: "georefresh", SHELL: "/bin/sh", PATH: "/usr/bin:/bin", ...env },
    cwd: home,
    input: stdin,
    encoding: "utf8",
  });
}

/** The installed paths the examples name, moved into this test's folder. */
function localize(command: string): string {
  return command.replaceAll("/srv/georefresh", home).replaceAll("/usr/local/bin/georefresh", join(bin, "georefresh"));
}

beforeAll(() => {
  mkdirSync(home);
  mkdirSync(bin);
  // What `npm install -g` leaves: a `georefresh` on PATH that is a link to the CLI.
  symlinkSync(BUILT_MAIN, join(bin, "georefresh"));
  writeFileSync(
    join(home, "parcels.geojson"),
    JSON.stringify({
      type: "FeatureCollection",
      features: [0, 1].map((k) => ({
        type: "Feature",
        properties: { parcel_id: `p${k}` },
        geometry: { type: "Point", coordinates: [-104.8 + k * 0.01, 40.4] },
      })),
    }),
  );
  writeFileSync(
    join(home, "georefresh.config.json"),
    JSON.stringify({
      store: "./data",
      datasets: { parcels: { source: { url: "./parcels.geojson", key: ["parcel_id"] }, regions: ["weld"] } },
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the crontab line (infra/cron/georefresh.crontab)", () => {
  const crontab = parseCrontab(readFileSync(join(ROOT, "infra/cron/georefresh.crontab"), "utf8"));

  it("has five valid schedule fields, and its date format survives cron's % rule", () => {
    const [m, h, dom, mon, dow] = crontab.fields as [string, string, string, string, string];
    expect([
      cronField(m, 0, 59),
      cronField(h, 0, 23),
      cronField(dom, 1, 31),
      cronField(mon, 1, 12),
      cronField(dow, 0, 7),
    ]).toEqual([true, true, true, true, true]);
    expect(crontab.stdin).toBe(""); // every % was escaped: nothing of the command became its stdin
    expect(crontab.command).toContain("+%F");
    expect(crontab.env.PATH?.split(":")).toContain("/usr/local/bin");
  });

  it("runs under /bin/sh with cron's environment and refreshes the feed, exit 0, no warning", () => {
    const path = (crontab.env.PATH as string).replace("/usr/local/bin", bin);
    const r = runAsScheduler(localize(crontab.command), {
      ...crontab.env,
      PATH: `${path}:${dirname(process.execPath)}`,
    });
    expect(r.status, r.stderr).toBe(0);
    const log = readFileSync(join(home, "georefresh.log"), "utf8");
    expect(log).toBe(""); // --quiet: nothing on success, and no warning about earlier dates
    const yesterday = execFileSync("date", ["-u", "-d", "yesterday", "+%F"], { encoding: "utf8" }).trim();
    const shown = execFileSync(BUILT_MAIN, ["ls", "parcels", "--json"], { cwd: home, encoding: "utf8" });
    expect(shown).toContain(yesterday);
  });

  it("would fail as the old hint wrote it: an unescaped % cuts the command", () => {
    const naive = parseCrontab(
      `30 2 * * * cd /srv/georefresh && georefresh backfill --dataset parcels --trailing 1 --to "$(date -u -d yesterday +%F)"`,
    );
    expect(naive.command).not.toContain("%F");
    const r = runAsScheduler(localize(naive.command), { PATH: `${bin}:/usr/bin:/bin` }, naive.stdin);
    expect(r.status).not.toBe(0);
  });
});

describe("the systemd service and timer (infra/systemd/)", () => {
  const unitDir = join(ROOT, "infra/systemd");
  const service = readFileSync(join(unitDir, "georefresh-nightly.service"), "utf8");
  const timer = readFileSync(join(unitDir, "georefresh-nightly.timer"), "utf8");
  const key = (text: string, name: string) =>
    [...text.matchAll(new RegExp(`^${name}=(.*)$`, "gm"))].map((m) => m[1] as string);

  it("systemd-analyze verify accepts both with no warning", () => {
    const r = spawnSync(
      "systemd-analyze",
      ["verify", join(unitDir, "georefresh-nightly.service"), join(unitDir, "georefresh-nightly.timer")],
      { encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(0);
    // verify prints what it ignores and still exits 0: any line about our units is a mistake in them
    expect(r.stderr.split("\n").filter((l) => l.includes("georefresh-nightly"))).toEqual([]);
    const calendar = spawnSync("systemd-analyze", ["calendar", key(timer, "OnCalendar")[0] as string], {
      encoding: "utf8",
    });
    expect(calendar.status, calendar.stderr).toBe(0);
    expect(calendar.stdout).toMatch(/Normalized form: \*-\*-\* 02:30:00 UTC/);
  });

  it("catches missed nights, signals georefresh itself, and does not retry what would fail again", () => {
    expect(key(timer, "Persistent")).toEqual(["true"]);
    expect(key(service, "KillMode")).toEqual(["mixed"]);
    expect(key(service, "Type")).toEqual(["oneshot"]);
    expect(key(service, "RestartPreventExitStatus")[0]?.split(" ").sort()).toEqual(["1", "2", "3"]);
    // exec: the shell is replaced by georefresh, so the main process systemd signals is node's
    expect(key(service, "ExecStart")[0]).toMatch(/^\/bin\/sh -c 'exec \/usr\/local\/bin\/georefresh /);
  });

  it("its ExecStart runs as systemd would run it and refreshes the feed, exit 0", () => {
    rmSync(join(home, "data"), { recursive: true, force: true });
    const exec = key(service, "ExecStart")[0] as string;
    // systemd: %% is a literal %; then the command line is split, here /bin/sh -c '<script>'
    const script = /^\/bin\/sh -c '(.*)'$/.exec(exec.replaceAll("%%", "%"))?.[1] as string;
    const r = runAsScheduler(localize(script), { PATH: `/usr/bin:/bin:${dirname(process.execPath)}` });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/parcels: 1 partition: 1 promoted/);
    expect(r.stderr).toBe("");
  });
});
