/**
 * The URL WebFetch fetches. Plain http is always upgraded to https, loopback included: a page
 * never travels in clear text, and tests serve https with a certificate they make themselves
 * (`WebFetchOptions.ca`). The host named in the URL is what `WebFetch(domain:…)` rules see.
 */

export const MAX_URL_LENGTH = 2000;

export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/** Parses and checks the model's URL, and upgrades it to https. */
export function checkFetchUrl(text: string): UrlCheck {
  const invalid = (why: string): UrlCheck => ({
    ok: false,
    message: `Error: Invalid URL "${text}". ${why}`,
  });
  if (text.length > MAX_URL_LENGTH) {
    return invalid(`The URL is longer than ${MAX_URL_LENGTH} characters.`);
  }
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return invalid('The URL provided could not be parsed.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return invalid(`WebFetch fetches http and https URLs only, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials in a URL would leave the machine in the request and in the tool log.
    return invalid('The URL must not contain a username or password.');
  }
  if (url.hostname === '') return invalid('The URL has no host.');
  return { ok: true, url: upgradeToHttps(url) };
}

/** The same URL with https: http's default port 80 becomes https's 443, another port stays. */
export function upgradeToHttps(url: URL): URL {
  if (url.protocol === 'https:') return new URL(url.href);
  const upgraded = new URL(url.href);
  upgraded.protocol = 'https:';
  return upgraded;
}

/** The host as domain rules see it: lower case, punycode, IPv6 without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The `ruleContent` of a WebFetch call; `domain:` alone when the URL does not parse. */
export function domainRuleContent(text: string): string {
  const check = checkFetchUrl(text);
  return `domain:${check.ok ? hostOf(check.url) : ''}`;
}

/** Whether a redirect may be followed without asking: same scheme, host and port. */
export function isSameOrigin(from: URL, to: URL): boolean {
  return from.origin === to.origin;
}
