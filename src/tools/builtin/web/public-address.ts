/**
 * Where WebFetch may connect for a URL's host. WebFetch runs in the controller, outside the
 * sandbox, on the runner's own network (its metadata service, a self-hosted runner's internal
 * hosts, this machine's own services), so it dials public addresses only, checked the way the
 * sandbox's proxy checks them (`forbiddenAddress`, sandbox/allowed-domains.ts):
 * 1. an IP literal is checked as it is;
 * 2. a name is resolved once and every address it resolves to is checked, so a name with one
 *    public and one private answer is refused;
 * 3. the first address is the one the connection uses (fetch-page.ts pins it), so nothing
 *    resolves the name again between the check and the connection (DNS rebinding).
 * No rule, mode or policy field lifts this (docs/DECISIONS.md #23): a private host is for a
 * sandboxed command through `sandbox.network.allowedDomains`, where the proxy judges it.
 */
import { isIP } from 'node:net';
import { canonicalIp, forbiddenAddress } from '../../../sandbox/allowed-domains.js';
import { errorCode, localAddresses } from '../../../sandbox/network-judge.js';

export type Resolve = (host: string) => Promise<string[]>;

export interface DialAddress {
  address: string;
  family: 4 | 6;
}

export interface AddressOptions {
  resolve: Resolve;
  /**
   * Addresses dialed although they are not public: a test's own loopback server. Set only in
   * code (createWebFetchTool's options); the policy and the model's input never reach it.
   */
  testAddresses: readonly string[];
}

/** The checked address to dial for `host` (a name, or IP text without brackets); throws if none. */
export async function publicAddress(host: string, options: AddressOptions): Promise<DialAddress> {
  const exempt = new Set(options.testAddresses.map(canonicalIp));
  const locals = localAddresses();
  const refusal = (address: string) => {
    if (isIP(address) === 0) return 'not an IP address';
    if (exempt.has(canonicalIp(address))) return undefined;
    return forbiddenAddress(address, locals, { publicOnly: true });
  };
  if (isIP(host) !== 0) {
    const why = refusal(host);
    if (why) throw new Error(refused(`${host} is ${why}`));
    return dial(host);
  }
  let addresses: string[];
  try {
    addresses = await options.resolve(host);
  } catch (error) {
    throw new Error(`WebFetch could not resolve ${host} (${errorCode(error)}).`);
  }
  if (addresses.length === 0) throw new Error(`WebFetch could not resolve ${host}: no address.`);
  for (const address of addresses) {
    const why = refusal(address);
    if (why) throw new Error(refused(`${host} resolves to ${address}, ${why}`));
  }
  return dial(addresses[0] as string);
}

function dial(address: string): DialAddress {
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

/** What the model reads: what was refused and why, not which policy change would allow it (DECISIONS.md #22). */
function refused(what: string): string {
  return `WebFetch refused to connect: ${what}. WebFetch fetches pages from public internet addresses only (it runs outside the sandbox, on the runner's own network); no rule, mode or other spelling of the URL changes that.`;
}
