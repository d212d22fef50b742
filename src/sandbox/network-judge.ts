/**
 * Steps 1–3 of the proxy (network-proxy.ts) for one request: read the target, match it against
 * the allow-list, and for a name resolve it once and check every address it resolves to. The
 * verdict carries the one address that may be dialed, so that nothing resolves the name again
 * between the check and the connection (DNS rebinding).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  canonicalIp,
  forbiddenAddress,
  matchAllowedDomains,
  splitHostPort,
} from './allowed-domains.js';
import type { AllowedDomain } from './allowed-domains.js';

const FIELD = 'sandbox.network.allowedDomains';
const NAME = /^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*\.?$/i;

export interface Target {
  host: string;
  port: number;
}

export type Verdict =
  | { allowed: true; address: string; reason: string }
  | { allowed: false; status: 403 | 502; reason: string };

export async function systemResolve(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, order: 'ipv4first' });
  return answers.map((answer) => answer.address);
}

/** Steps 2 and 3: which address, if any, this target may be dialed at. */
export async function judge(
  target: Target,
  domains: readonly AllowedDomain[],
  resolve: (host: string) => Promise<string[]>,
): Promise<Verdict> {
  const { host, port } = target;
  const where = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  const entry = matchAllowedDomains(domains, host, port);
  if (!entry)
    return {
      allowed: false,
      status: 403,
      reason: `ci-agent sandbox: ${where} is not in the policy's ${FIELD}; the sandbox reaches only the hosts listed there. Add "${isIP(host) === 6 ? `[${host}]` : host}" to ${FIELD} in the policy if this command needs it.`,
    };
  if (isIP(host) !== 0)
    return { allowed: true, address: host, reason: `allowed by "${entry.entry}"` };
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    return {
      allowed: false,
      status: 502,
      reason: `ci-agent sandbox: ${host} did not resolve (${errorCode(error)})`,
    };
  }
  if (addresses.length === 0)
    return { allowed: false, status: 502, reason: `ci-agent sandbox: ${host} has no address` };
  const locals = localAddresses();
  for (const address of addresses) {
    const why = isIP(address) === 0 ? 'not an IP address' : forbiddenAddress(address, locals);
    if (why && !matchAllowedDomains(domains, address, port))
      return {
        allowed: false,
        status: 403,
        reason: `ci-agent sandbox: ${host} is allowed by "${entry.entry}" but resolves to ${address}, ${why}, which the sandbox may not reach. If that is intended, add the address itself ("${isIP(address) === 6 ? `[${address}]` : address}:${port}") to ${FIELD}.`,
      };
  }
  return {
    allowed: true,
    address: addresses[0] as string,
    reason: `allowed by "${entry.entry}", dialed at ${addresses[0]}`,
  };
}

/** This host's interface addresses, canonical: an allowed name must not point back at the host. */
export function localAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const info of list ?? []) addresses.add(canonicalIp(info.address.replace(/%.*$/, '')));
  return addresses;
}

/** `host:port` of a CONNECT, or the authority of an absolute http:// URI. */
export function parseTarget(
  authority: string,
  defaultPort: number | undefined,
): Target | undefined {
  const split = splitHostPort(authority.toLowerCase());
  if (typeof split === 'string') return undefined;
  const port = split.port ?? defaultPort;
  const host = split.host.replace(/\.$/, '');
  if (port === undefined || host === '') return undefined;
  if (isIP(host) !== 0) return { host: canonicalIp(host), port };
  return NAME.test(host) ? { host, port } : undefined;
}

export function errorCode(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message;
  return String(error);
}
