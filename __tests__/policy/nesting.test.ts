import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConfigError, parseMcpConfigDocument } from '../../src/mcp/load-mcp-config.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import {
  assertNesting,
  findExcessNesting,
  MAX_NESTING_DEPTH,
  nestingMessage,
} from '../../src/policy/nesting.js';
import { PolicyError } from '../../src/policy/policy-error.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const dashes = (depth: number) => `${'- '.repeat(depth)}x\n`;
/** A block mapping nested by indentation, one level per line. */
const indented = (depth: number) =>
  Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}a:`).join('\n') + ' 1\n';

describe('findExcessNesting', () => {
  it.each([
    ['JSON arrays', arrays],
    ['JSON objects', objects],
    ['YAML block sequences on one line', dashes],
    ['YAML block mappings by indentation', indented],
  ])('allows %s up to the limit and finds the first level beyond it', (_, nest) => {
    expect(findExcessNesting(nest(MAX_NESTING_DEPTH))).toBeUndefined();
    expect(findExcessNesting(nest(MAX_NESTING_DEPTH + 1))).toBeDefined();
  });

  it('gives the line and column where the first collection beyond the limit starts', () => {
    expect(findExcessNesting(arrays(10_000))).toEqual({ line: 1, column: 65 });
    expect(findExcessNesting(indented(70))).toEqual({ line: 65, column: 129 });
  });

  it('does not count brackets inside strings or comments', () => {
    const text = `deny: ["${'['.repeat(500)}"] # ${'{'.repeat(500)}\nask: '${'['.repeat(500)}'\n`;
    expect(findExcessNesting(text)).toBeUndefined();
  });

  it('names the first of several places that nest too deep, in the order of the text', () => {
    const text = `a:\n${indented(3).replace(/^/gm, '  ')}b:\n${indented(3).replace(/^/gm, '  ')}`;
    expect(findExcessNesting(text, 3)).toEqual({ line: 4, column: 7 });
  });

  it('takes another limit', () => {
    expect(findExcessNesting('{"a": [[1]]}', 2)).toEqual({ line: 1, column: 8 });
  });
});

describe('assertNesting', () => {
  it('throws a PolicyError naming the file, the position and the limit', () => {
    expect(() => assertNesting('.claude/settings.json', arrays(100))).toThrow(PolicyError);
    expect(() => assertNesting('.claude/settings.json', arrays(100))).toThrow(
      `.claude/settings.json:1:65: ${nestingMessage()}`,
    );
  });

  it('accepts a file within the limit', () => {
    expect(() =>
      assertNesting('.github/ci-agent.yml', 'permissions: { deny: [Bash] }'),
    ).not.toThrow();
  });
});

describe('loadPolicy with a deeply nested file', () => {
  let project: Workspace;
  beforeEach(() => {
    project = makeWorkspace('ci-agent-nesting-');
  });
  afterEach(() => project.cleanup());

  async function failure(load: Promise<unknown>): Promise<string> {
    try {
      await load;
    } catch (error) {
      expect(error).not.toBeInstanceOf(RangeError);
      expect(error).toBeInstanceOf(PolicyError);
      return (error as Error).message;
    }
    throw new Error('expected loadPolicy to fail');
  }

  describe.each([10_000, 100_000])('%i levels deep', (depth) => {
    it.each([
      ['.github/ci-agent.yml', 'YAML flow sequences', arrays, 65],
      ['.github/ci-agent.yml', 'YAML block sequences', dashes, 129],
      ['.github/ci-agent.yml', 'JSON objects', objects, 321],
      ['.github/ci-agent.json', 'JSON arrays', arrays, 65],
      ['.github/ci-agent.json', 'JSON objects', objects, 321],
      ['.claude/settings.json', 'JSON arrays', arrays, 65],
      ['.claude/settings.json', 'JSON objects', objects, 321],
    ])('refuses %s holding %s, naming the file and the depth', async (file, _, nest, column) => {
      await project.write(file, nest(depth));
      expect(await failure(loadPolicy({ projectDir: project.root }))).toBe(
        `${file}:1:${column}: nested more than 64 levels deep (lists and mappings inside one another); expected a flatter file`,
      );
    });

    it('refuses a deep value under a key a settings file may hold', async () => {
      await project.write('.claude/settings.json', `{"permissions": {"deny": ${arrays(depth)}}}`);
      expect(await failure(loadPolicy({ projectDir: project.root }))).toMatch(
        /^\.claude\/settings\.json:1:\d+: nested more than 64 levels deep/,
      );
    });

    it('refuses deep --settings JSON, naming the flag', async () => {
      const load = loadPolicy({ projectDir: project.root, settingsArgs: [objects(depth)] });
      expect(await failure(load)).toMatch(/^--settings:1:321: nested more than 64 levels deep/);
    });

    it('refuses deep JSON that is also invalid, naming the file', async () => {
      await project.write('.claude/settings.json', '['.repeat(depth));
      expect(await failure(loadPolicy({ projectDir: project.root }))).toBe(
        '.claude/settings.json:1:65: invalid JSON: nested more than 64 levels deep (lists and mappings inside one another); expected a flatter file',
      );
    });
  });

  it('still loads a file nested up to the limit', async () => {
    const deepButAllowed = `{"permissions": {"deny": ["Bash"]}, "x": ${arrays(MAX_NESTING_DEPTH - 1)}}`;
    await project.write('.claude/settings.json', deepButAllowed);
    const policy = await loadPolicy({ projectDir: project.root });
    expect(policy.permissions.deny.map((rule) => rule.text)).toEqual(['Bash']);
  });
});

// .mcp.json does not share this path: JSON.parse does not recurse and its schema looks only a
// few levels down, so it needs no depth check. This guards that it stays so.
describe('parseMcpConfigDocument (src/mcp) with a deeply nested .mcp.json', () => {
  it.each([10_000, 100_000])('fails or skips the server by name at %i levels', (depth) => {
    expect(() => parseMcpConfigDocument(arrays(depth), '.mcp.json')).toThrow(McpConfigError);
    const deepArgs = `{"mcpServers": {"s": {"command": "x", "args": ${arrays(depth)}}}}`;
    const { broken } = parseMcpConfigDocument(deepArgs, '.mcp.json');
    expect(broken.map((entry) => entry.name)).toEqual(['s']);
    expect(broken[0]?.message).toMatch(/^\.mcp\.json: mcpServers\.s: args/);
  });
});
