/**
 * Delivery never follows a redirect, and no credential in a URL is ever printed or stored: a canary secret is
 * put in an S3 endpoint and a webhook URL and must appear in no output (text or --json) and in no stored object.
 */
import { createServer } from "node:http";
import type { AddressInfo, Server } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRecord } from "../../src/manifest/outbox.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { redact } from "../../src/store/secrets.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";

const CANARY = "Canary7Secret";

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{
  server: Server;
  url: string;
  hits: { method: string; path: string; headers: Record<string, unknown> }[];
}> {
  const hits: { method: string; path: string; headers: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    req.resume();
    req.on("end", () => handler?.(req, res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe("redirects and secrets", () => {
  let dir: string;
  let store: FsStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-secrets-"));
    store = new FsStore(join(dir, "store"));
    const input = join(dir, "points.json");
    writePoints(input, 20);
    const r = await refreshPartition({
      store,
      task: pointsTask(input),
      partition: { dataset: "hook", region: "north", date: "2026-01-01" },
      versions: VERSIONS,
    });
    expect(r.outcome).toBe("promoted");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function storedText(): Promise<string> {
    let all = "";
    for await (const e of store.list("")) all += new TextDecoder().decode((await store.get(e.key)).body);
    return all;
  }

  for (const status of [301, 302, 307, 308]) {
    it(`a ${status} is a delivery failure naming its Location; the event stays pending and the other host gets nothing`, async () => {
      const elsewhere = await listen((_, res) => res.writeHead(200).end("ok"));
      const hook = await listen((_, res) =>
        res.writeHead(status, { location: `${elsewhere.url}/steal?token=${CANARY}` }).end(),
      );
      try {
        const r = await runCli(
          ["deliver", "--webhook", `${hook.url}/hook`, "--attempts", "2", "--store", store.root, "--json"],
          { GEOREFRESH_WEBHOOK_SECRET: "s" },
        );
        expect(r.code).toBe(1);
        const report = JSON.parse(r.stdout) as { counts: Record<string, number>; events: { detail?: string }[] };
        expect(report.counts.failed).toBe(1);
        expect(report.events[0]?.detail).toMatch(
          new RegExp(`HTTP ${status} redirect to ${elsewhere.url}/steal\\?token=\\*\\*\\* — not followed`),
        );
        expect(hook.hits.map((h) => h.method)).toEqual(["POST"]); // not retried: a redirect will not go away by itself
        expect(elsewhere.hits).toEqual([]);
        for await (const e of store.list("outbox/hook/"))
          expect((await readRecord(store, e.key))?.record.status).toBe("pending");
        expect(r.stdout + r.stderr + (await storedText())).not.toContain(CANARY);
      } finally {
        elsewhere.server.close();
        hook.server.close();
      }
    }, 60_000);
  }

  it("webhook userinfo becomes a Basic Authorization header and is printed and stored nowhere", async () => {
    const closed = await listen(() => undefined);
    const port = new URL(closed.url).port;
    await new Promise((r) => closed.server.close(r));
    // First an unreachable webhook, so the error is stored in the record's last_error; then a working one.
    const down = await runCli([
      "deliver",
      "--webhook",
      `http://hookuser:${CANARY}@127.0.0.1:${port}/hook`,
      "--attempts",
      "1",
      "--store",
      store.root,
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/not delivered: fetch failed \(ECONNREFUSED\)/);
    const hook = await listen((_, res) => res.writeHead(200).end("ok"));
    try {
      const url = `http://hookuser:${CANARY}@${hook.url.slice("http://".length)}/hook`;
      const r = await runCli(["deliver", "--webhook", url, "--store", store.root, "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).counts.sent).toBe(1);
      expect(hook.hits[0]?.headers.authorization).toBe(`Basic ${Buffer.from(`hookuser:${CANARY}`).toString("base64")}`);
      expect(hook.hits[0]?.path).toBe("/hook");
      expect(down.stdout + down.stderr + r.stdout + r.stderr + (await storedText())).not.toContain(CANARY);
    } finally {
      hook.server.close();
    }
  }, 60_000);

  it("an S3 endpoint with credentials in it is refused without echoing them, by every command", async () => {
    const endpoint = `http://AKIA${CANARY}:${CANARY}pass@127.0.0.1:1`;
    const runs = [
      await runCli(["doctor", "--store", `s3://bucket/p?endpoint=${encodeURIComponent(endpoint)}`]),
      await runCli(["doctor", "--store", "s3://bucket/p", "--json"], { AWS_ENDPOINT_URL_S3: endpoint }),
      await runCli(
        ["run", "--dataset", "us-counties", "--region", "RI", "--date", "2026-01-01", "--store", "s3://bucket/p"],
        { AWS_ENDPOINT_URL_S3: endpoint },
      ),
      await runCli(["gc", "--store", "s3://bucket/p", "--json"], { AWS_ENDPOINT_URL_S3: endpoint }),
      await runCli(["deliver", "--webhook", "http://127.0.0.1:1/x", "--store", "s3://bucket/p"], {
        AWS_ENDPOINT_URL_S3: endpoint,
      }),
    ];
    for (const r of runs) {
      expect(r.stdout + r.stderr).toMatch(/carries credentials in its URL; give the bare endpoint/);
      expect(r.stdout + r.stderr).not.toContain(CANARY);
      expect(r.code).toBe(3);
    }
  }, 120_000);

  it("redact() hides userinfo and signed query parameters in any text, and leaves the rest", () => {
    expect(
      redact(`GET https://u:${CANARY}@h.example/a?X-Amz-Signature=${CANARY}&X-Amz-Credential=${CANARY}&part=2 failed`),
    ).toBe("GET https://***@h.example/a?X-Amz-Signature=***&X-Amz-Credential=***&part=2 failed");
    expect(redact(`see s3://bucket/key in https://acct.blob.example/c?sv=1&sig=${CANARY}#x`)).toBe(
      "see s3://bucket/key in https://acct.blob.example/c?sv=1&sig=***#x",
    );
    expect(
      redact(
        `bad AccountName=acct;AccountKey=${CANARY};EndpointSuffix=core.windows.net or SharedAccessSignature=sv=1&sig=${CANARY}`,
      ),
    ).toBe("bad AccountName=acct;AccountKey=***;EndpointSuffix=core.windows.net or SharedAccessSignature=***");
  });
});
