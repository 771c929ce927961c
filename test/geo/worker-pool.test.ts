import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const POOL = new URL("../../src/geo/worker-pool.ts", import.meta.url).href;
const WORKER = new URL("../../src/geo/validity-worker.ts", import.meta.url).href;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Runs a module in a process of its own and says how it ended (a hang ends by the timeout's SIGKILL). */
function run(body: string) {
  const code = `import { WorkerPool } from ${JSON.stringify(POOL)};\nconst url = new URL(${JSON.stringify(WORKER)});\n${body}`;
  return spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: ROOT,
    timeout: 30_000,
    killSignal: "SIGKILL",
    encoding: "utf8",
  });
}

describe("WorkerPool with idleUnref", () => {
  it("lets the process exit while its threads are idle, whether or not they ever had a job", () => {
    // Never given a job: the pool's own 'message' listener once re-referenced the thread, and this hung.
    const never = run(`new WorkerPool(url, 2, 1, { idleUnref: true }); console.log("started");`);
    expect(never.signal).toBeNull();
    expect(never.status).toBe(0);
    expect(never.stdout).toContain("started");

    // After a job: the thread is held while it works, and released when it is idle again.
    const after = run(
      `const pool = new WorkerPool(url, 1, 1, { idleUnref: true });
const crs = { id: "OGC:CRS84", geographic: true, proj4: "+proj=longlat +datum=WGS84 +no_defs", areaOfUse: [-180, -90, 180, 90] };
const point = new Uint8Array([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 36, 64, 0, 0, 0, 0, 0, 0, 52, 64]);
const out = await pool.run({ chunk: { firstRow: 0, data: point, offsets: new Int32Array([0, 21]), crs } });
console.log("issues", out.issues.length);`,
    );
    expect(after.signal).toBeNull();
    expect(after.status).toBe(0);
    expect(after.stdout).toContain("issues 0");
  }, 70_000);
});
