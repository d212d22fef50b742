import { describe, expect, it } from 'vitest';
import {
  forbiddenAddress,
  matchAllowedDomains,
  parseAllowedDomains,
} from '../../src/sandbox/allowed-domains.js';

describe('parseAllowedDomains', () => {
  it.each([
    ['registry.npmjs.org', 'name', 'registry.npmjs.org', undefined],
    ['GitHub.COM.', 'name', 'github.com', undefined],
    ['*.githubusercontent.com', 'wildcard', 'githubusercontent.com', undefined],
    ['example.com:8443', 'name', 'example.com', 8443],
    ['bücher.de', 'name', 'xn--bcher-kva.de', undefined],
    ['10.0.0.7', 'ip', '10.0.0.7', undefined],
    ['127.0.0.1:5000', 'ip', '127.0.0.1', 5000],
    ['[fd00::0001]', 'ip', 'fd00::1', undefined],
    ['[::1]:8080', 'ip', '::1', 8080],
    ['fd00::1', 'ip', 'fd00::1', undefined],
  ])('reads %s as a %s entry for %s, port %s', (entry, kind, host, port) => {
    expect(parseAllowedDomains([entry])).toEqual({
      domains: [{ entry, kind, host, port }],
      errors: [],
    });
  });

  it.each([
    ['*', 'name each domain'],
    ['*.com', 'too wide'],
    ['', 'expected a host name'],
    ['https://example.com', 'expected a host name'],
    ['example.com/path', 'expected a host name'],
    ['exa mple.com', 'expected a host name'],
    ['-bad.example.com', 'expected a host name'],
    ['api.*.example.com', 'expected a host name'],
    ['example.com:0', 'invalid port 0'],
    ['example.com:70000', 'invalid port 70000'],
    ['example.com:http', 'invalid port http'],
    ['[fd00::1', 'without its "]"'],
    ['[example.com]:80', 'only an IPv6 address'],
    ['fd00::1:zz', 'in brackets'],
  ])('refuses %j, saying %s', (entry, message) => {
    const { domains, errors } = parseAllowedDomains([entry]);
    expect(domains).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`sandbox.network.allowedDomains: ${JSON.stringify(entry)}`);
    expect(errors[0]).toContain(message);
  });

  it('keeps the valid entries and reports each invalid one', () => {
    const { domains, errors } = parseAllowedDomains(['a.dev', 'bad entry', 'b.dev', '*']);
    expect(domains.map((domain) => domain.host)).toEqual(['a.dev', 'b.dev']);
    expect(errors).toHaveLength(2);
  });
});

describe('matchAllowedDomains', () => {
  const { domains } = parseAllowedDomains([
    'registry.npmjs.org',
    '*.example.com',
    'pinned.dev:8443',
    '127.0.0.1:5000',
    '[fd00::1]',
  ]);
  // [host, port, the entry that matches, or undefined]
  const table: Array<[string, number, string | undefined]> = [
    ['registry.npmjs.org', 443, 'registry.npmjs.org'],
    ['REGISTRY.npmjs.org.', 80, 'registry.npmjs.org'],
    ['npmjs.org', 443, undefined],
    ['evil.registry.npmjs.org', 443, undefined],
    ['api.example.com', 443, '*.example.com'],
    ['a.b.example.com', 22, '*.example.com'],
    ['example.com', 443, undefined],
    ['badexample.com', 443, undefined],
    ['example.com.evil.dev', 443, undefined],
    ['pinned.dev', 8443, 'pinned.dev:8443'],
    ['pinned.dev', 443, undefined],
    ['127.0.0.1', 5000, '127.0.0.1:5000'],
    ['127.0.0.1', 5001, undefined],
    ['fd00::1', 443, '[fd00::1]'],
    ['fd00:0::0001', 443, '[fd00::1]'],
    ['::1', 443, undefined],
    // an IP literal is matched only by IP entries, a name only by name entries
    ['127.0.0.1', 443, undefined],
  ];
  it.each(table)('%s:%d → %s', (host, port, expected) => {
    expect(matchAllowedDomains(domains, host, port)?.entry).toBe(expected);
  });
});

describe('forbiddenAddress', () => {
  const locals = new Set(['10.1.2.3', 'fd12::5']);
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['224.0.0.251', 'multicast'],
    ['ff02::1', 'multicast'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['10.1.2.3', 'the machine the action runs on'],
    ['::ffff:10.1.2.3', 'the machine the action runs on'],
    ['fd12::5', 'the machine the action runs on'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(forbiddenAddress(address, locals)).toContain(kind);
  });

  it.each([
    '104.16.0.35',
    '10.1.2.4',
    '192.168.1.10',
    '2606:4700::6810:1',
    '::ffff:104.16.0.35',
    '64:ff9b::6810:23',
  ])('lets %s through', (address) => {
    expect(forbiddenAddress(address, locals)).toBeUndefined();
  });

  it.each([
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::', 'unspecified'],
    ['64:ff9b::1', 'unspecified'],
  ])('reads the IPv4 address a NAT64 address carries: refuses %s (%s)', (address, kind) => {
    expect(forbiddenAddress(address, locals)).toContain(kind);
  });

  describe('when only public addresses may be dialed (WebFetch)', () => {
    const publicOnly = { publicOnly: true };
    it.each([
      ['127.0.0.1', 'loopback'],
      ['10.1.2.3', 'the machine the action runs on'],
      ['10.0.0.1', 'private-network'],
      ['172.16.0.1', 'private-network'],
      ['172.31.255.255', 'private-network'],
      ['192.168.1.10', 'private-network'],
      ['::ffff:192.168.1.10', 'private-network'],
      ['64:ff9b::a00:1', 'private-network'],
      ['100.64.0.1', 'carrier-grade NAT'],
      ['100.127.255.254', 'carrier-grade NAT'],
      ['fd00::1', 'unique-local'],
      ['fc00::1', 'unique-local'],
      ['192.0.2.1', 'documentation'],
      ['198.18.0.1', 'benchmarking'],
      ['2001:db8::1', 'documentation'],
      ['192.0.0.8', 'special-purpose'],
      ['2002:7f00:1::', 'special-purpose'],
      ['64:ff9b:1::a00:1', 'special-purpose'],
      ['fec0::1', 'not a global unicast'],
      ['::7f00:1', 'not a global unicast'],
      ['255.255.255.255', 'broadcast'],
    ])('refuses %s (%s)', (address, kind) => {
      expect(forbiddenAddress(address, locals, publicOnly)).toContain(kind);
    });

    it.each([
      '104.16.0.35',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '11.0.0.1',
      '2606:4700::6810:1',
      '2a00:1450:4001:80b::200e',
      '::ffff:104.16.0.35',
      '64:ff9b::6810:23',
    ])('lets %s through', (address) => {
      expect(forbiddenAddress(address, locals, publicOnly)).toBeUndefined();
    });
  });
});
