/**
 * WebFetch(domain:host) rules (docs/CC-COMPAT.md §2.5). The call's ruleContent is `domain:<hostname>`.
 * Host names compare case-insensitively (in their ASCII form, so an IDN rule meets its punycode
 * host); `*.example.com` covers subdomains at any depth but not example.com itself; `domain:*`
 * covers every host. A specifier in another form, or a call without a host, never allows and
 * always denies or asks.
 */
import { domainToASCII } from 'node:url';

const PREFIX = 'domain:';

export function domainRuleMatches(
  specifier: string,
  ruleContent: string | undefined,
  kind: 'allow' | 'deny' | 'ask',
): boolean {
  const pattern = specifier.startsWith(PREFIX) ? specifier.slice(PREFIX.length).trim() : undefined;
  const host = ruleContent?.startsWith(PREFIX) ? hostName(ruleContent.slice(PREFIX.length)) : '';
  if (pattern === undefined || pattern === '' || host === '') return kind !== 'allow';
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) {
    const suffix = `.${hostName(pattern.slice(2))}`;
    return suffix !== '.' && host.endsWith(suffix);
  }
  return host === hostName(pattern);
}

export function isDomainSpecifier(specifier: string): boolean {
  return specifier.startsWith(PREFIX) && specifier.length > PREFIX.length;
}

function hostName(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  return domainToASCII(trimmed) || trimmed.toLowerCase();
}
