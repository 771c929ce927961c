import type { ErrorCode } from "../errors.js";
import { BlockList, isIP } from "node:net";
import { InputIdentityError } from "./identity-error.js";

/**
 * Where an HTTP input may connect (docs/inputs.md, "Where inputs may come from"). An input URL is the user's, but
 * the server behind it is not: a redirect can point anywhere, and DNS can map any name to any address. So:
 * - never link-local addresses (169.254.0.0/16, fe80::/10) or the cloud metadata services' addresses and names,
 *   by URL or by redirect: on a cloud VM or pod they hand out the instance's credentials;
 * - never a redirect from one host to a loopback or private address of another host (into the machine's own
 *   network);
 * unless the host or range is allowed by name: GEOREFRESH_ALLOW_HOSTS, the config's "inputs.allowHosts", or the
 * task's `allowHosts`. Checked on the address actually connected to, not only on the name.
 */
export class InputRefusedError extends InputIdentityError {
  override readonly code: ErrorCode = "InputRefused";
}

/** Link-local and the metadata services: never, unless allowed. */
const METADATA = new BlockList();
METADATA.addSubnet("169.254.0.0", 16, "ipv4");
METADATA.addAddress("100.100.100.200", "ipv4"); // Alibaba Cloud's metadata service
METADATA.addSubnet("fe80::", 10, "ipv6");
METADATA.addAddress("fd00:ec2::254", "ipv6"); // AWS IMDS over IPv6
const METADATA_NAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

/** Loopback and private ranges: not where a redirect from another host may lead. */
const INTERNAL = new BlockList();
INTERNAL.addSubnet("127.0.0.0", 8, "ipv4");
INTERNAL.addSubnet("0.0.0.0", 8, "ipv4");
INTERNAL.addSubnet("10.0.0.0", 8, "ipv4");
INTERNAL.addSubnet("172.16.0.0", 12, "ipv4");
INTERNAL.addSubnet("192.168.0.0", 16, "ipv4");
INTERNAL.addSubnet("100.64.0.0", 10, "ipv4"); // carrier-grade NAT, also used inside clusters
INTERNAL.addAddress("::1", "ipv6");
INTERNAL.addAddress("::", "ipv6");
INTERNAL.addSubnet("fc00::", 7, "ipv6");

/** An IPv4-mapped IPv6 address (::ffff:169.254.169.254) is judged as the IPv4 address it is. */
function plain(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1] as string, family: "ipv4" };
  return { address, family: isIP(address) === 6 ? "ipv6" : "ipv4" };
}

export class AllowList {
  private readonly ranges = new BlockList();
  private readonly names: string[] = [];
  private count = 0;

  /** Entries: a host name ("mirror.internal"), a suffix ("*.corp.example"), an address or a CIDR range. */
  constructor(entries: readonly string[], where: string) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      this.count++;
      const [address, bits] = entry.split("/");
      const family = isIP(address ?? "");
      if (family) {
        const max = family === 4 ? 32 : 128;
        const n = bits === undefined ? max : Number(bits);
        if (!/^\d+$/.test(bits ?? String(max)) || n > max)
          throw new InputIdentityError(`${where}: ${JSON.stringify(raw)} is not a CIDR range (e.g. 10.0.0.0/8)`);
        this.ranges.addSubnet(address as string, n, family === 4 ? "ipv4" : "ipv6");
      } else if (/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
        this.names.push(entry);
      } else
        throw new InputIdentityError(
          `${where}: ${JSON.stringify(raw)} is neither a host name, *.suffix, an address nor a CIDR range`,
        );
    }
  }

  get size(): number {
    return this.count;
  }

  host(name: string): boolean {
    const host = name.toLowerCase().replace(/^\[|\]$/g, "");
    return this.names.some((n) => (n.startsWith("*.") ? host.endsWith(n.slice(1)) : host === n));
  }

  address(address: string): boolean {
    const p = plain(address);
    return this.ranges.check(p.address, p.family);
  }
}

/** The allow list in force: the environment's, the config's (through the same variable) and the task's. */
export function allowListOf(taskHosts: readonly string[] = []): AllowList {
  const env = (process.env.GEOREFRESH_ALLOW_HOSTS ?? "").split(",");
  return new AllowList([...env, ...taskHosts], "GEOREFRESH_ALLOW_HOSTS / allowHosts");
}

export interface Hop {
  /** The input as the task names it, for messages. */
  input: string;
  /** The host of this request. */
  host: string;
  /** The host of the request that redirected here; undefined for the input's own URL. */
  redirectedFrom?: string;
  allow: AllowList;
}

const HOW =
  'if this host is yours and meant, allow it: GEOREFRESH_ALLOW_HOSTS=<host or CIDR>, or "inputs": { "allowHosts": [...] } in the config';

/** Before any connection: a name that is a metadata service's, or an address literal that is refused. */
export function checkHost(hop: Hop): void {
  const host = hop.host.toLowerCase().replace(/^\[|\]$/g, "");
  if (hop.allow.host(host)) return;
  if (METADATA_NAMES.has(host.replace(/\.$/, "")))
    throw new InputRefusedError(
      `input ${hop.input}: refused to connect to ${host}, a cloud metadata service${hop.redirectedFrom ? ` (redirected from ${hop.redirectedFrom})` : ""}; nothing was read or published. ${HOW}`,
    );
  if (isIP(host)) checkAddress(hop, host);
}

/** The address a connection is about to be made to (after DNS), judged by the rules above. */
export function checkAddress(hop: Hop, address: string): void {
  if (hop.allow.host(hop.host) || hop.allow.address(address)) return;
  const p = plain(address);
  const via = hop.redirectedFrom ? ` (redirected from ${hop.redirectedFrom})` : "";
  const named = hop.host.replace(/^\[|\]$/g, "") === address ? address : `${hop.host} (${address})`;
  if (METADATA.check(p.address, p.family))
    throw new InputRefusedError(
      `input ${hop.input}: refused to connect to ${named}${via}: a link-local or cloud metadata address, where a cloud machine's credentials are served; nothing was read or published. ${HOW}`,
    );
  if (
    hop.redirectedFrom !== undefined &&
    hop.redirectedFrom.toLowerCase() !== hop.host.toLowerCase() &&
    INTERNAL.check(p.address, p.family)
  )
    throw new InputRefusedError(
      `input ${hop.input}: ${hop.redirectedFrom} redirected to ${named}, a loopback or private address of another host; refused, nothing was read or published. ${HOW}`,
    );
}
