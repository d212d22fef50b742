import { describe, expect, it } from 'vitest';
import { domainRuleMatches, isDomainSpecifier } from '../../src/permissions/domain-rules.js';

describe('domainRuleMatches', () => {
  // [specifier, ruleContent, kind, expected]
  const table: Array<[string, string | undefined, 'allow' | 'deny' | 'ask', boolean]> = [
    ['domain:example.com', 'domain:example.com', 'allow', true],
    ['domain:example.com', 'domain:EXAMPLE.com', 'allow', true],
    ['domain:Example.COM', 'domain:example.com', 'allow', true],
    ['domain:example.com', 'domain:example.com.', 'allow', true],
    ['domain:example.com', 'domain:api.example.com', 'allow', false],
    ['domain:example.com', 'domain:example.org', 'allow', false],
    ['domain:*.example.com', 'domain:api.example.com', 'allow', true],
    ['domain:*.example.com', 'domain:a.b.c.example.com', 'allow', true],
    ['domain:*.example.com', 'domain:example.com', 'allow', false],
    ['domain:*.example.com', 'domain:badexample.com', 'allow', false],
    ['domain:*.example.com', 'domain:example.com.evil.dev', 'allow', false],
    ['domain:*', 'domain:anything.dev', 'allow', true],
    ['domain:bücher.de', 'domain:xn--bcher-kva.de', 'allow', true],
    ['domain:127.0.0.1', 'domain:127.0.0.1', 'allow', true],
    // a specifier or a call that cannot be read: never allows, always denies or asks
    ['https://example.com', 'domain:example.com', 'allow', false],
    ['https://example.com', 'domain:example.com', 'deny', true],
    ['domain:', 'domain:example.com', 'ask', true],
    ['domain:example.com', undefined, 'allow', false],
    ['domain:example.com', undefined, 'deny', true],
    ['domain:example.com', 'https://example.com/', 'deny', true],
    ['domain:example.com', 'domain:example.org', 'deny', false],
  ];
  it.each(table)('%s against %s as %s → %s', (specifier, content, kind, expected) => {
    expect(domainRuleMatches(specifier, content, kind)).toBe(expected);
  });
});

describe('isDomainSpecifier', () => {
  it.each([
    ['domain:example.com', true],
    ['domain:*', true],
    ['domain:', false],
    ['example.com', false],
  ])('%s → %s', (specifier, expected) => {
    expect(isDomainSpecifier(specifier)).toBe(expected);
  });
});
