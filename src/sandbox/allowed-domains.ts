/**
 * The sandbox's network allow-list (policy `sandbox.network.allowedDomains`): parsing the entries
 * once, and the pure checks the proxy (network-proxy.ts) makes on each request.
 *
 * An entry is an exact host name (`registry.npmjs.org`), `*.example.com` (subdomains at any depth,
 * not example.com itself: Claude Code's reading), or an IP literal (`10.0.0.7`, `[fd00::1]`), each
 * with an optional `:port`; without one it covers every port. Names match through the WebFetch
 * domain matcher (src/permissions/domain-rules.ts), so both features read a domain the same way.
 *
 * A name is dialed only at an address that passed `forbiddenAddress`: loopback, unspecified,
 * link-local, multicast, cloud metadata and this host's own interface addresses are where the
 * action's model endpoint, its GitHub token and the runner's services live. An address named
 * by an IP-literal entry (and its port) is the policy's explicit exception. WebFetch, which runs
 * outside the sandbox, asks the same function for public addresses only (`publicOnly`).
 */
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import { domainRuleMatches } from '../permissions/domain-rules.js';

export interface AllowedDomain {
  /** The entry as the policy wrote it. */
  readonly entry: string;
  readonly kind: 'name' | 'wildcard' | 'ip';
  /** Lower-case name, the suffix after `*.`, or the canonical IP text (IPv6 without brackets). */
  readonly host: string;
  /** Undefined: every port. */
  readonly port: number | undefined;
}

export interface ParsedAllowedDomains {
  readonly domains: readonly AllowedDomain[];
  /** One message per invalid entry, naming it and the expected form. */
  readonly errors: readonly string[];
}

const EXPECTED =
  'expected a host name (registry.npmjs.org), *.example.com, or an IP literal (10.0.0.7, [fd00::1]), optionally followed by :port';
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function parseAllowedDomains(entries: readonly string[]): ParsedAllowedDomains {
  const domains: AllowedDomain[] = [];
  const errors: string[] = [];
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string')
      errors.push(`sandbox.network.allowedDomains: ${JSON.stringify(entry)} ${parsed}`);
    else domains.push(parsed);
  }
  return { domains, errors };
}

function parseEntry(entry: string): AllowedDomain | string {
  const text = entry.trim().toLowerCase();
  if (/[/?#@\s]/.test(text))
    return `is not valid: write the host alone, without a scheme or path; ${EXPECTED}`;
  const split = splitHostPort(text);
  if (typeof split === 'string') return split;
  const { host, port } = split;
  if (isIP(host) !== 0) return { entry, kind: 'ip', host: canonicalIp(host), port };
  if (host.includes(':')) return `is not valid: an IPv6 address is written in brackets, [fd00::1]`;
  if (host === '*') return `is not accepted: name each domain the sandbox may reach (${EXPECTED})`;
  const wildcard = host.startsWith('*.');
  const written = (wildcard ? host.slice(2) : host).replace(/\.$/, '');
  const name = domainToASCII(written) || written;
  const labels = name.split('.');
  if (name === '' || !labels.every((label) => LABEL.test(label)))
    return `is not valid: ${EXPECTED}`;
  if (wildcard && labels.length < 2)
    return `is too wide: *.${name} covers a whole top-level domain; name the domain under it (*.example.com)`;
  return { entry, kind: wildcard ? 'wildcard' : 'name', host: name, port };
}

/** `host`, `host:port`, `[v6]`, `[v6]:port`; a bare IPv6 literal is returned whole for the caller. */
export function splitHostPort(text: string): { host: string; port: number | undefined } | string {
  let host = text;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return `is not valid: a "[" without its "]"; ${EXPECTED}`;
    host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (isIP(host) !== 6) return `is not valid: only an IPv6 address goes in brackets`;
    if (rest !== '') {
      if (!rest.startsWith(':')) return `is not valid: ${EXPECTED}`;
      portText = rest.slice(1);
    }
  } else if (text.split(':').length === 2) {
    [host = '', portText] = text.split(':');
  }
  if (portText === undefined) return { host, port: undefined };
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) return `has an invalid port ${portText}: expected 1 to 65535`;
  return { host, port };
}

/** IP text in one form, so that `::0001` and `::1` (or `0:0::1`) compare equal. */
export function canonicalIp(address: string): string {
  if (isIPv4(address)) return address;
  // A zone (fe80::1%eth0) names the interface, not the address; URL refuses it.
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return address;
  return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
}

/** The entries that let a request for `host:port` through; `host` is a name or an IP literal. */
export function matchAllowedDomains(
  domains: readonly AllowedDomain[],
  host: string,
  port: number,
): AllowedDomain | undefined {
  const ip = isIP(host) !== 0 ? canonicalIp(host) : undefined;
  return domains.find((domain) => {
    if (domain.port !== undefined && domain.port !== port) return false;
    if (domain.kind === 'ip' || ip !== undefined) return domain.kind === 'ip' && domain.host === ip;
    const pattern = domain.kind === 'wildcard' ? `*.${domain.host}` : domain.host;
    return domainRuleMatches(`domain:${pattern}`, `domain:${host}`, 'allow');
  });
}

/** [what the range is, CIDRs]; an address without a prefix length is a single address. */
const RANGES: ReadonlyArray<[string, readonly string[]]> = [
  ['a loopback address', ['127.0.0.0/8', '::1']],
  ['an unspecified address', ['0.0.0.0/8', '::']],
  // Cloud metadata services: AWS, GCP, Azure (169.254.169.254), Alibaba, Azure's wireserver, Oracle.
  [
    'a cloud metadata address',
    ['169.254.169.254', '100.100.100.200', '168.63.129.16', '192.0.0.192', 'fd00:ec2::254'],
  ],
  ['a link-local address', ['169.254.0.0/16', 'fe80::/10']],
  ['a multicast address', ['224.0.0.0/4', 'ff00::/8']],
  ['a reserved or broadcast address', ['240.0.0.0/4']],
];

/**
 * What else is not the public internet (IANA's special-purpose registries): the proxy dials these
 * for a name the policy allowed (an internal registry on a self-hosted runner's network), WebFetch
 * never does.
 */
const NON_PUBLIC_RANGES: ReadonlyArray<[string, readonly string[]]> = [
  ['a private-network address', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['a carrier-grade NAT address', ['100.64.0.0/10']],
  ['a unique-local address', ['fc00::/7']],
  [
    'a documentation or benchmarking address',
    ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '198.18.0.0/15', '2001:db8::/32'],
  ],
  [
    'a special-purpose address',
    ['192.0.0.0/24', '192.88.99.0/24', '100::/64', '64:ff9b:1::/48', '2001::/23', '2002::/16'],
  ],
  // Global unicast IPv6 is 2000::/3; the rest is site-local, IPv4-compatible or unassigned.
  ['not a global unicast address', ['::/3', '4000::/2', '8000::/1']],
];

type Family = 'ipv4' | 'ipv6';

const BLOCKED = blockLists(RANGES);
const NON_PUBLIC = blockLists(NON_PUBLIC_RANGES);

/**
 * One BlockList per range and family: a BlockList matches an IPv4 address against an IPv6 rule
 * through its mapped form, so `::/3` alone would hold every IPv4 address.
 */
function blockLists(
  ranges: ReadonlyArray<[string, readonly string[]]>,
): ReadonlyArray<[string, Record<Family, BlockList>]> {
  return ranges.map(([label, cidrs]) => {
    const lists = { ipv4: new BlockList(), ipv6: new BlockList() };
    for (const cidr of cidrs) {
      const [address = '', prefix] = cidr.split('/');
      const type = isIPv4(address) ? 'ipv4' : 'ipv6';
      if (prefix === undefined) lists[type].addAddress(address, type);
      else lists[type].addSubnet(address, Number(prefix), type);
    }
    return [label, lists];
  });
}

function rangeOf(
  ranges: ReadonlyArray<[string, Record<Family, BlockList>]>,
  address: string,
  type: Family,
): string | undefined {
  return ranges.find(([, lists]) => lists[type].check(address, type))?.[0];
}

/**
 * Why a name must not be dialed at `address`, or undefined when it may. `localAddresses` are this
 * host's interface addresses (os.networkInterfaces), passed in so the check stays pure.
 * `publicOnly` refuses every address that is not on the public internet as well (WebFetch).
 */
export function forbiddenAddress(
  address: string,
  localAddresses: ReadonlySet<string>,
  options: { publicOnly?: boolean } = {},
): string | undefined {
  const canonical = canonicalIp(address);
  const checked = carriedIPv4(canonical) ?? canonical;
  const type = isIPv4(checked) ? 'ipv4' : 'ipv6';
  const range = rangeOf(BLOCKED, checked, type);
  if (range) return range;
  if (localAddresses.has(checked)) return 'an address of the machine the action runs on';
  if (!options.publicOnly) return undefined;
  return rangeOf(NON_PUBLIC, checked, type);
}

/**
 * An IPv4-mapped IPv6 address (::ffff:127.0.0.1) reaches the IPv4 address it carries, and so does
 * one in NAT64's well-known prefix (64:ff9b::7f00:1), through the network's NAT64 gateway.
 */
const CARRIES_IPV4 = new BlockList();
CARRIES_IPV4.addSubnet('::ffff:0:0', 96, 'ipv6');
CARRIES_IPV4.addSubnet('64:ff9b::', 96, 'ipv6');

function carriedIPv4(canonical: string): string | undefined {
  if (!isIPv6(canonical) || !CARRIES_IPV4.check(canonical, 'ipv6')) return undefined;
  const [high = 0, low = 0] = ipv6Groups(canonical).slice(-2);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The eight 16-bit groups of canonical IPv6 text (hex groups, at most one `::`, no dotted quad). */
function ipv6Groups(canonical: string): number[] {
  const groups = (text: string) => (text === '' ? [] : text.split(':').map((g) => parseInt(g, 16)));
  const [head = '', tail] = canonical.split('::');
  if (tail === undefined) return groups(head);
  const [before, after] = [groups(head), groups(tail)];
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}
