/**
 * The `mcp` section of .github/ci-agent.yml, read through the real policy file parser and loader.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_MCP_POLICY } from '../../src/mcp/mcp-policy.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import { PolicyError } from '../../src/policy/policy-error.js';
import { parsePolicyFile } from '../../src/policy/policy-file.js';

const POLICY = '.github/ci-agent.yml';

function parse(text: string) {
  return parsePolicyFile({ kind: 'policy', path: POLICY, text, anchorDir: '/repo' });
}

function problems(text: string): string {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as PolicyError).message;
  }
  throw new Error('expected the policy to be rejected');
}

describe('the policy file’s mcp section', () => {
  it('reads servers, trust, requirements, elicitation, the environment allow-list and timeouts', () => {
    const layer = parse(`
mcp:
  servers:
    github:
      type: http
      url: https://api.githubcopilot.com/mcp/
      headers: { Authorization: "Bearer \${GITHUB_MCP_TOKEN}" }
    files:
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", "."]
  trusted: [files]
  required: [github]
  acceptElicitationDefaults: [files]
  allowEnv: [GITHUB_MCP_TOKEN]
  startupTimeoutSeconds: 10
  toolTimeoutSeconds: 120
`);
    expect(layer.mcp).toEqual({
      servers: {
        github: {
          type: 'http',
          url: 'https://api.githubcopilot.com/mcp/',
          headers: { Authorization: 'Bearer ${GITHUB_MCP_TOKEN}' },
        },
        files: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '.'],
          env: {},
        },
      },
      source: POLICY,
      trusted: ['files'],
      required: ['github'],
      acceptElicitationDefaults: ['files'],
      allowEnv: ['GITHUB_MCP_TOKEN'],
      startupTimeoutSeconds: 10,
      toolTimeoutSeconds: 120,
    });
  });

  it('is empty when the section is absent', () => {
    expect(parse('limits: { maxTurns: 3 }').mcp).toEqual(EMPTY_MCP_POLICY);
  });

  describe('when the section is wrong', () => {
    it.each([
      [
        'mcp: { servers: { files: { command: npx, cwd: /tmp } } }',
        'mcp.servers.files.cwd: unknown key "cwd"; expected one of: type, command, args, env, url, headers',
      ],
      [
        'mcp: { servers: { files: { type: http, command: npx } } }',
        'mcp.servers.files.url: missing; an http server needs its url',
      ],
      [
        'mcp: { servers: { my__files: { command: npx } } }',
        'mcp.servers.my__files: expected a server name of letters, digits, "_" and "-", without "__"',
      ],
      ['mcp: { trusted: files }', 'mcp.trusted: expected a list of server names, got "files"'],
      [
        'mcp: { acceptElicitationDefaults: [my__files] }',
        'mcp.acceptElicitationDefaults[0]: expected a server name without "__"',
      ],
      [
        'mcp: { allowEnv: [MY-TOKEN] }',
        'mcp.allowEnv[0]: expected an environment variable name, got "MY-TOKEN"',
      ],
      [
        'mcp: { startupTimeoutSeconds: 0 }',
        'mcp.startupTimeoutSeconds: expected a positive number of seconds',
      ],
      ['mcp: { server: {} }', 'mcp.server: unknown key "server"; did you mean "servers"?'],
    ])('rejects %s, naming the path and the expected form', (text, message) => {
      expect(problems(text)).toContain(message);
    });
  });
});

describe('loadPolicy', () => {
  it('carries the policy file’s mcp section, and an empty one without a policy file', async () => {
    const files: Record<string, string> = {
      '/repo/.github/ci-agent.yml': 'mcp: { trusted: [files] }',
    };
    const withFile = await loadPolicy({
      projectDir: '/repo',
      readFile: (path) => Promise.resolve(files[path]),
    });
    expect(withFile.mcp.trusted).toEqual(['files']);
    const without = await loadPolicy({
      projectDir: '/repo',
      readFile: () => Promise.resolve(undefined),
    });
    expect(without.mcp).toEqual(EMPTY_MCP_POLICY);
  });
});
