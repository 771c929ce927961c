/** Outbox and delivery against a real local HTTP receiver. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { outboxPrefix } from "../../src/manifest/outbox.js";
import { deliverOutbox } from "../../src/outbox/deliver.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { openStore } from "../../src/store/open.js";
import type { ObjectStore } from "../../src/store/types.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { fileTransport } from "../helpers/file-transport.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { startReceiver } from "../helpers/receiver.js";
import type { Receiver } from "../helpers/receiver.js";
import { snapshot } from "../helpers/snapshot.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

const SECRET = "hmac-test-secret";

function suite(h: StoreHarness): void {
  let dir: string;
  let receiver: Receiver;
  const fixtures: StoreFixture[] = [];
  /** A fresh store of this backend per test, plus a second client of the same store for a second deliverer. */
  const fresh = async (): Promise<{
    store: ObjectStore;
    twin: () => ObjectStore;
    url: string;
    env: Record<string, string>;
  }> => {
    const fx = await h.open();
    fixtures.push(fx);
    return {
      store: fx.store,
      twin: () => openStore(fx.url as string),
      url: fx.url as string,
      env: fx.env,
    };
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-outbox-"));
    receiver = await startReceiver(SECRET);
  });
  afterAll(async () => {
    await receiver.close();
    for (const fx of fixtures) await fx.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const opts = () => ({ webhook: receiver.url, secret: SECRET, backoffMs: 5 });

  it("through another transport (a file): two deliverers at once and a re-run send each event exactly once", async () => {
    const { store, twin } = await fresh();
    writePoints(join(dir, "file-t.json"), 12);
    const task = pointsTask(join(dir, "file-t.json"));
    for (const region of ["north", "south"]) {
      const partition = { dataset: "ft", region, date: "2026-01-01" };
      expect((await refreshPartition({ store, task, partition, versions: VERSIONS })).outcome).toBe("promoted");
    }
    const sink = join(dir, `events-${h.name}.ndjson`);
    writeFileSync(sink, "");
    const other = twin();
    const [a, b] = await Promise.all([
      deliverOutbox(store, { transport: fileTransport(sink), dataset: "ft" }),
      deliverOutbox(other, { transport: fileTransport(sink), dataset: "ft" }),
    ]);
    await other.close();
    expect(a.counts.sent + b.counts.sent).toBe(2);
    const again = await deliverOutbox(store, { transport: fileTransport(sink), dataset: "ft" });
    expect(again.counts).toMatchObject({ sent: 0, "already-sent": 2 });
    const lines = readFileSync(sink, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; region: string });
    expect(lines).toHaveLength(2);
    expect(new Set(lines.map((l) => l.id)).size).toBe(2);
    expect(lines.map((l) => l.region).sort()).toEqual(["north", "south"]);
  });

  it("one event per change, however often it is re-run; delivered once, signed, with its id as Idempotency-Key", async () => {
    const { store } = await fresh();
    writePoints(join(dir, "once.json"), 20);
    const task = pointsTask(join(dir, "once.json"));
    const partition = { dataset: "ev", region: "north", date: "2026-01-01" };
    expect((await refreshPartition({ store, task, partition, versions: VERSIONS })).outcome).toBe("promoted");
    await store.delete(`manifests/ev/region=north/date=2026-01-01.json`); // force the change to be made again
    expect((await refreshPartition({ store, task, partition, versions: VERSIONS })).outcome).toBe("reconciled");
    expect(Object.keys(await snapshot(store, outboxPrefix()))).toHaveLength(1);
    const first = await deliverOutbox(store, opts());
    expect(first.counts.sent).toBe(1);
    const second = await deliverOutbox(store, opts());
    expect(second.counts).toMatchObject({ sent: 0, "already-sent": 1 });
    const posts = receiver.posts.filter((p) => p.key === first.events[0]?.id);
    expect(posts).toHaveLength(1);
    expect(posts[0]?.signed).toBe(true);
    expect(JSON.parse(posts[0]?.body as string)).toMatchObject({
      dataset: "ev",
      region: "north",
      logical_date: "2026-01-01",
      rows: 10,
      previous_sha256: null,
    });
  });

  it("a receiver that fails twice then succeeds gets the event", async () => {
    const { store } = await fresh();
    writePoints(join(dir, "flaky.json"), 20);
    await refreshPartition({
      store,
      task: pointsTask(join(dir, "flaky.json")),
      partition: { dataset: "flaky", region: "south", date: "2026-01-01" },
      versions: VERSIONS,
    });
    receiver.failNext = 2;
    const before = receiver.posts.length;
    const report = await deliverOutbox(store, opts());
    expect(report.counts.sent).toBe(1);
    expect(receiver.posts.length - before).toBe(3);
    expect(receiver.applied.has(report.events[0]?.id as string)).toBe(true);
  });

  it("an event that cannot be delivered stays pending and is sent by a later run", async () => {
    const { store } = await fresh();
    writePoints(join(dir, "later.json"), 20);
    await refreshPartition({
      store,
      task: pointsTask(join(dir, "later.json")),
      partition: { dataset: "later", region: "north", date: "2026-01-01" },
      versions: VERSIONS,
    });
    receiver.failNext = 2;
    const failed = await deliverOutbox(store, { ...opts(), attempts: 2 });
    expect(failed.counts.failed).toBe(1);
    expect(failed.events[0]?.detail).toBe("HTTP 503");
    const retried = await deliverOutbox(store, opts());
    expect(retried.counts.sent).toBe(1);
  });

  it("two concurrent deliverers: every event applied exactly once, none lost", async () => {
    const { store, twin } = await fresh();
    writePoints(join(dir, "many.json"), 20);
    const task = pointsTask(join(dir, "many.json"));
    for (let d = 1; d <= 6; d++)
      await refreshPartition({
        store,
        task,
        partition: { dataset: "many", region: "north", date: `2026-02-0${d}` },
        versions: VERSIONS,
      });
    const applied = receiver.applied.size;
    const [a, b] = await Promise.all([deliverOutbox(twin(), opts()), deliverOutbox(twin(), opts())]);
    expect(a.counts.sent + b.counts.sent).toBe(6);
    expect(receiver.applied.size - applied).toBe(6);
    const keys = receiver.posts.map((p) => p.key);
    for (const e of [...a.events, ...b.events].filter((x) => x.status === "sent"))
      expect(keys.filter((k) => k === e.id).length).toBeGreaterThanOrEqual(1);
    expect((await deliverOutbox(store, opts())).counts["already-sent"]).toBe(6);
  });

  it("the deliver command: secret from the environment, JSON report, exit 1 while an event cannot be delivered", async () => {
    const { store, url, env: storeEnv } = await fresh();
    writePoints(join(dir, "cli.json"), 20);
    await refreshPartition({
      store,
      task: pointsTask(join(dir, "cli.json")),
      partition: { dataset: "cli", region: "north", date: "2026-01-01" },
      versions: VERSIONS,
    });
    const env = { ...storeEnv, GEOREFRESH_WEBHOOK_SECRET: SECRET };
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r)); // nothing listens there any more
    const down = await runCli(
      ["deliver", "--webhook", `http://127.0.0.1:${port}/hook`, "--attempts", "1", "--store", url],
      env,
    );
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/not delivered: fetch failed \(ECONNREFUSED\)/);
    const before = receiver.posts.length;
    const r = await runCli(["deliver", "--webhook", receiver.url, "--store", url, "--json"], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).counts.sent).toBe(1);
    expect(receiver.posts.slice(before).map((p) => p.signed)).toEqual([true]);
  }, 60_000);

  it("the event of a run that lost its race is never sent", async () => {
    const { store } = await fresh();
    writePoints(join(dir, "race-a.json"), 20, 1);
    writePoints(join(dir, "race-b.json"), 20, 2);
    const partition = { dataset: "race", region: "north", date: "2026-03-01" };
    const results = await Promise.all(
      ["race-a.json", "race-b.json"].map((f) =>
        refreshPartition({ store, task: pointsTask(join(dir, f), { delayMs: 20 }), partition, versions: VERSIONS }),
      ),
    );
    expect(results.map((r) => r.outcome).sort()).toEqual(["promoted", "superseded"]);
    const report = await deliverOutbox(store, opts());
    expect(report.counts).toMatchObject({ sent: 1, waiting: 1 });
    const winner = results.find((r) => r.outcome === "promoted");
    const sent = receiver.posts.filter((p) => p.key === report.events.find((e) => e.status === "sent")?.id);
    expect(JSON.parse(sent[0]?.body as string).sha256).toBe(winner?.sha256);
  });
}

describeEachStore("outbox and deliver", suite, (h) => h.capabilities.crossProcess);
