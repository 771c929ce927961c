/**
 * The services `npm test` starts (scripts/*.sh) listen on the loopback only: a test cluster on a laptop or a
 * shared CI host must not answer the network. Slurm's daemons bound every interface until slurm.sh set
 * CommunicationParameters=NoCtldInAddrAny,NoInAddrAny. Read from the kernel's own table (`ss`), per process.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, inject, it } from "vitest";

/** Listening TCP sockets by process name: the local addresses each listens on. */
function listening(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of execFileSync("ss", ["-ltnpH"], { encoding: "utf8" }).trim().split("\n")) {
    const cols = line.trim().split(/\s+/);
    const name = /users:\(\("([^"]+)"/.exec(line)?.[1];
    if (name) out.set(name, [...(out.get(name) ?? []), cols[3] as string]);
  }
  return out;
}

const loopback = (address: string) => /^(127\.\d+\.\d+\.\d+|\[::1\]):\d+$/.test(address);

describe("the test services listen on the loopback only", () => {
  const services: [string, string[]][] = [
    ["slurm", ["slurmctld", "slurmd"]],
    ["s3", ["radosgw", "ceph-mon", "ceph-osd"]],
    ["postgres", ["postgres"]],
  ];
  for (const [service, daemons] of services)
    it.skipIf(inject(service as "slurm" | "s3" | "postgres") === null)(`${service}: ${daemons.join(", ")}`, () => {
      const table = listening();
      for (const daemon of daemons) {
        const addresses = table.get(daemon) ?? [];
        expect(addresses.length, `${daemon} listens on nothing: is it running?`).toBeGreaterThan(0);
        expect(
          addresses.filter((a) => !loopback(a)),
          `${daemon} listens beyond the loopback`,
        ).toEqual([]);
      }
    });
});
