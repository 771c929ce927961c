/**
 * npm run bench:inputs [-- --mib N] — an HTTP input of N MiB (default 256) from a local server, read the way a run
 * reads it (identify, stream to the verified local copy, read the bytes), beside the reference in the same run: a
 * plain `fetch` + `arrayBuffer()` of the same URL, as the input path did before. Prints time and each one's added
 * peak memory (RSS, measured in a fresh child process per side) as ratios.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

const arg = process.argv.indexOf("--mib");
const MIB = arg > 0 ? Number(process.argv[arg + 1]) : 256;
const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === "--side") {
  // One side, in its own process: prints seconds and peak RSS above the process's start.
  const [, , , side, url] = process.argv as string[];
  const base = process.memoryUsage().rss;
  let peak = base;
  const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  let bytes = 0;
  if (side === "georefresh") {
    const { resolveInput } = await import("../src/inputs/resolve.js");
    const input = await resolveInput(url as string);
    bytes = (await input.read()).byteLength;
  } else {
    // The input path before: the whole body in memory, then its sha256 (the identity of a file without validators).
    const { createHash } = await import("node:crypto");
    const res = await fetch(url as string);
    const body = new Uint8Array(await res.arrayBuffer());
    createHash("sha256").update(body).digest("hex");
    bytes = body.byteLength;
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(watch);
  peak = Math.max(peak, process.memoryUsage().rss);
  process.stdout.write(JSON.stringify({ seconds, addedMiB: (peak - base) / 2 ** 20, bytes }));
  process.exit(0);
}

const chunk = Buffer.alloc(1 << 20, 0x61);
const server = createServer((req, res) => {
  // No validators: the body's sha256 is the identity, so georefresh downloads once to identify and keeps that copy.
  res.writeHead(200, { "content-length": String(MIB * chunk.length) });
  if (req.method === "HEAD") return void res.end();
  let sent = 0;
  const pump = () => {
    while (sent < MIB && res.write(chunk)) sent++;
    if (sent >= MIB) res.end();
    else res.once("drain", pump);
  };
  pump();
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big.bin`;

async function run(name: string): Promise<{ seconds: number; addedMiB: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", SELF, "--side", name, url], {
      env: { ...process.env, GEOREFRESH_MAX_INPUT_BYTES: String(2 * MIB * 2 ** 20) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${name} exited ${code}`))));
  });
}

const rows: string[] = [];
const ours = await run("georefresh");
const reference = await run("fetch");
if (ours.bytes !== reference.bytes) throw new Error(`sizes differ: ${ours.bytes} vs ${reference.bytes}`);
rows.push(`HTTP input of ${MIB} MiB from 127.0.0.1, identified by its sha256 (no validators), then read:`);
rows.push(
  `  time          georefresh ${ours.seconds.toFixed(2)} s   fetch+sha256 ${reference.seconds.toFixed(2)} s   ratio ${(ours.seconds / reference.seconds).toFixed(2)}`,
);
rows.push(
  `  added RSS     georefresh ${ours.addedMiB.toFixed(0)} MiB   fetch+sha256 ${reference.addedMiB.toFixed(0)} MiB   ratio ${(ours.addedMiB / reference.addedMiB).toFixed(2)}`,
);
rows.push(
  "  (georefresh streams to a local copy while hashing and reads the bytes back once a task asks: the added RSS is that one read)",
);
console.log(rows.join("\n"));
server.close();
