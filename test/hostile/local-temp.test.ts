/**
 * Issue 22, item 17: staged artifacts and input copies a killed run left in TMPDIR are swept by `gc` (by name,
 * older than the floor, their process gone); a live run's, a fresh one, a link and other programs' files stay.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { writePoints, writePointsConfig } from "../helpers/points-task.js";

describe("gc sweeps this machine's leftovers in TMPDIR", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "georefresh-local-temp-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("removes a killed run's staged file and input folder, and nothing else", async () => {
    const temp = join(dir, "tmp");
    mkdirSync(temp);
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    const old = new Date(Date.now() - 3 * 24 * 3_600_000);
    const make = (name: string, kind: "file" | "dir", when = old) => {
      const path = join(temp, name);
      if (kind === "dir") {
        mkdirSync(path);
        writeFileSync(join(path, "copy"), "input bytes");
      } else writeFileSync(path, "PAR1");
      utimesSync(path, when, when);
      return path;
    };
    const staged = make(`georefresh-staged-${dead}-0b7c.parquet`, "file");
    const inputs = make(`georefresh-inputs-${dead}-Xa12`, "dir");
    const live = make(`georefresh-staged-${process.pid}-1234.parquet`, "file");
    const fresh = make(`georefresh-inputs-${dead}-new`, "dir", new Date());
    const other = make("someone-elses.parquet", "file");
    const target = make("target.txt", "file");
    const link = join(temp, `georefresh-staged-${dead}-link.parquet`);
    symlinkSync(target, link);
    writePoints(join(dir, "points.json"), 4);
    const config = writePointsConfig(dir, join(dir, "points.json"));
    const dry = await runCli(["gc", "--config", config], { TMPDIR: temp });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("would remove 2 local temp files (TMPDIR)");
    expect(existsSync(staged)).toBe(true);
    const applied = await runCli(["gc", "--apply", "--json", "--config", config], { TMPDIR: temp });
    expect(applied.code, applied.stderr).toBe(0);
    expect((JSON.parse(applied.stdout) as { local: string[] }).local.sort()).toEqual([inputs, staged].sort());
    expect([staged, inputs].map(existsSync)).toEqual([false, false]);
    expect([live, fresh, other, target, link].map(existsSync)).toEqual([true, true, true, true, true]);
  }, 60_000);
});
