/**
 * Network policy for webfetch: only public addresses. A fetched URL is attacker-chosen
 * (a page or a prompt can name any host), so loopback, private, link-local, CGNAT,
 * multicast and cloud-metadata addresses are refused — checked after DNS resolution, on
 * every address a name resolves to, and on literal IPs in any spelling the URL parser
 * accepts (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`). The caller must connect to the
 * returned address rather than resolve the name again (DNS rebinding).
 */
import type { LookupAddress } from 'node:dns';
import dns from 'node:dns/promises';
import net from 'node:net';
import { LoomError } from '../errors';

export interface PublicAddress {
  address: string;
  family: 4 | 6;
}

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

type Range = { base: bigint; bits: number; width: 32 | 128; reason: string; embedsV4?: (ip: bigint) => bigint };

/** Order matters: the first matching range gives the reason (metadata before link-local). */
const RANGES: Range[] = [
  v4('169.254.169.254/32', 'a cloud metadata address'),
  v4('0.0.0.0/8', 'an unspecified address'),
  v4('127.0.0.0/8', 'a loopback address'),
  v4('10.0.0.0/8', 'a private address'),
  v4('172.16.0.0/12', 'a private address'),
  v4('192.168.0.0/16', 'a private address'),
  v4('100.64.0.0/10', 'a shared (CGNAT) address'),
  v4('169.254.0.0/16', 'a link-local address'),
  v4('192.0.0.0/24', 'a reserved address'),
  v4('192.0.2.0/24', 'a reserved address'),
  v4('198.18.0.0/15', 'a reserved address'),
  v4('198.51.100.0/24', 'a reserved address'),
  v4('203.0.113.0/24', 'a reserved address'),
  v4('224.0.0.0/4', 'a multicast address'),
  v4('255.255.255.255/32', 'a broadcast address'),
  v4('240.0.0.0/4', 'a reserved address'),
  v6('::/128', 'an unspecified address'),
  v6('::1/128', 'a loopback address'),
  v6('::ffff:0:0/96', 'an IPv4-mapped address', (ip) => ip & 0xffffffffn),
  v6('::/96', 'an IPv4-compatible address', (ip) => ip & 0xffffffffn),
  v6('64:ff9b::/96', 'a NAT64 address', (ip) => ip & 0xffffffffn),
  v6('64:ff9b:1::/48', 'a private address'),
  v6('2002::/16', 'a 6to4 address', (ip) => (ip >> 80n) & 0xffffffffn),
  v6('fd00:ec2::254/128', 'a cloud metadata address'),
  v6('fc00::/7', 'a private address'),
  v6('fe80::/10', 'a link-local address'),
  v6('fec0::/10', 'a private (site-local) address'),
  v6('ff00::/8', 'a multicast address'),
  v6('100::/64', 'a reserved address'),
  v6('2001:db8::/32', 'a reserved address'),
];

export async function resolvePublicAddress(hostname: string): Promise<PublicAddress> {
  const refusal = refuseWithoutLookup(hostname);
  if (refusal) throw refusal;
  const host = canonicalHost(hostname);
  const literal = net.isIP(host);
  if (literal) return { address: host, family: literal as 4 | 6 };
  const addresses = await lookupAll(hostname, host);
  for (const { address } of addresses) {
    const reason = blockedReason(address);
    if (reason) throw refuse(hostname, `it resolves to ${address}, ${reason}`);
  }
  const [first] = addresses;
  return { address: first.address, family: first.family as 4 | 6 };
}

/**
 * The refusal that needs no DNS: a metadata host name or a non-public literal IP (so a
 * doomed fetch is denied before anyone is asked to approve it); null when DNS must decide.
 */
export function refuseWithoutLookup(hostname: string): LoomError | null {
  let host: string;
  try {
    host = canonicalHost(hostname);
  } catch (err) {
    return err as LoomError;
  }
  if (METADATA_NAMES.has(host)) return refuse(hostname, 'it is a cloud metadata endpoint');
  const reason = net.isIP(host) ? blockedReason(host) : null;
  return reason ? refuse(hostname, `${host} is ${reason}`) : null;
}

/** Why an IP address is not public, or null when it is. */
export function blockedReason(ip: string): string | null {
  const family = net.isIP(ip);
  if (family === 0) return 'not an IP address';
  const value = family === 4 ? parseV4(ip) : parseV6(ip);
  return reasonFor(value, family === 4 ? 32 : 128);
}

function reasonFor(value: bigint, width: 32 | 128): string | null {
  for (const range of RANGES) {
    if (range.width !== width || value >> BigInt(width - range.bits) !== range.base >> BigInt(width - range.bits)) continue;
    if (!range.embedsV4) return range.reason;
    const inner = reasonFor(range.embedsV4(value), 32);
    return inner ? `${inner} (${range.reason.replace(/^an? /, '')})` : null;
  }
  return null;
}

/**
 * The host the way a connection would see it: the WHATWG URL parser turns `2130706433`,
 * `0x7f.1` and `017700000001` into `127.0.0.1` and compresses IPv6.
 */
function canonicalHost(hostname: string): string {
  let host = hostname
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host.includes(':')) host = `[${host.replace(/%.*$/, '')}]`;
  try {
    return new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new LoomError(`"${hostname}" is not a valid host name.`);
  }
}

async function lookupAll(hostname: string, host: string): Promise<[LookupAddress, ...LookupAddress[]]> {
  let addresses: LookupAddress[];
  try {
    addresses = await dns.lookup(host, { all: true, verbatim: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'lookup failed';
    throw new LoomError(`Could not resolve host "${hostname}" (${code}).`, 'dns');
  }
  const [first, ...rest] = addresses;
  if (first === undefined) throw new LoomError(`Could not resolve host "${hostname}" (no addresses).`, 'dns');
  return [first, ...rest];
}

function refuse(hostname: string, why: string): LoomError {
  return new LoomError(`Refusing to connect to "${hostname}": ${why}; only public addresses are allowed.`, 'net_policy');
}

function v4(cidr: string, reason: string): Range {
  const [base = '', bits] = cidr.split('/'); // split gives at least one part
  return { base: parseV4(base), bits: Number(bits), width: 32, reason };
}

function v6(cidr: string, reason: string, embedsV4?: (ip: bigint) => bigint): Range {
  const [base = '', bits] = cidr.split('/'); // split gives at least one part
  return { base: parseV6(base), bits: Number(bits), width: 128, reason, embedsV4 };
}

function parseV4(ip: string): bigint {
  return ip.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

/** A valid IPv6 address (net.isIP checked) as a 128-bit number; handles `::` and a dotted tail. */
function parseV6(ip: string): bigint {
  let text = ip.replace(/%.*$/, '');
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted !== undefined) {
    const v = parseV4(dotted);
    text = `${text.slice(0, -dotted.length)}${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}
