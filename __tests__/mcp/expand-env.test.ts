import { describe, expect, it } from 'vitest';
import { expandServerConfig, expandString, McpEnvError } from '../../src/mcp/expand-env.js';

const allowed = {
  allow: ['API_TOKEN', 'EMPTY', 'REGION'],
  env: { API_TOKEN: 't0k', EMPTY: '', REGION: 'eu', GITHUB_TOKEN: 'ghs_secret' },
};

describe('expandString', () => {
  it.each([
    ['Bearer ${API_TOKEN}', 'Bearer t0k'],
    ['${REGION}-${REGION}', 'eu-eu'],
    ['${MISSING:-fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${EMPTY}', ''],
    ['$API_TOKEN and ${ not a reference', '$API_TOKEN and ${ not a reference'],
    ['${GITHUB_TOKEN:-none}', 'none'],
  ])('expands %j to %j', (text, expected) => {
    expect(expandString(text, allowed, 'url')).toBe(expected);
  });

  describe('when a variable cannot be read', () => {
    it('names an allowed variable that is not set', () => {
      expect(() =>
        expandString('${REGION2}', { ...allowed, allow: ['REGION2'] }, 'args[0]'),
      ).toThrow('args[0]: ${REGION2} is not set (set it, or write ${REGION2:-default})');
    });

    it('refuses a set variable the policy does not allow, and says how to allow it', () => {
      expect(() => expandString('token ${GITHUB_TOKEN}', allowed, 'headers.Authorization')).toThrow(
        new McpEnvError(
          "headers.Authorization: ${GITHUB_TOKEN} is set but not in the policy's mcp.allowEnv, so it is not read (add GITHUB_TOKEN to mcp.allowEnv in the policy file)",
        ),
      );
    });

    it('does not say whether an unlisted variable is set when it is not', () => {
      expect(() => expandString('${NOPE}', allowed, 'url')).toThrow(
        "url: ${NOPE} is not in the policy's mcp.allowEnv",
      );
    });
  });
});

describe('expandServerConfig', () => {
  it('expands command, args and env values of a stdio server', () => {
    expect(
      expandServerConfig(
        {
          type: 'stdio',
          command: '${REGION}/bin/server',
          args: ['--token', '${API_TOKEN}'],
          env: { REGION: '${REGION}', KEEP: 'plain' },
        },
        allowed,
      ),
    ).toEqual({
      type: 'stdio',
      command: 'eu/bin/server',
      args: ['--token', 't0k'],
      env: { REGION: 'eu', KEEP: 'plain' },
    });
  });

  it('expands url and header values of an http server', () => {
    expect(
      expandServerConfig(
        {
          type: 'http',
          url: 'https://${REGION}.example.test/mcp',
          headers: { Authorization: 'Bearer ${API_TOKEN}' },
        },
        allowed,
      ),
    ).toEqual({
      type: 'http',
      url: 'https://eu.example.test/mcp',
      headers: { Authorization: 'Bearer t0k' },
    });
  });

  it('lists every reference it cannot fill, by field', () => {
    expect(() =>
      expandServerConfig(
        { type: 'sse', url: '${A}', headers: { 'X-Key': '${B}' } },
        { allow: ['A', 'B'], env: {} },
      ),
    ).toThrow(
      'url: ${A} is not set (set it, or write ${A:-default}); headers.X-Key: ${B} is not set (set it, or write ${B:-default})',
    );
  });
});
