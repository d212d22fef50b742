import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/tool.js';

const tool = (name: string) =>
  defineTool({
    name,
    description: `the ${name} tool`,
    internalInputSchema: z.object({
      a: z.string().describe('a'),
      _hidden: z.number().optional().describe('h'),
    }),
    hiddenKeys: ['_hidden'],
    checkPermissions: () => ({ access: 'other' }),
    async *call() {
      return { data: null };
    },
    mapToolResultToToolResultBlockParam: (_output, id) => ({
      type: 'tool_result',
      tool_use_id: id,
      content: '',
    }),
  });

describe('ToolRegistry', () => {
  it('finds registered tools by exact name only', () => {
    const registry = new ToolRegistry([tool('Read')]);
    expect(registry.find('Read')?.name).toBe('Read');
    expect(registry.find('read')).toBeUndefined();
  });

  it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
    'finds nothing for the inherited name %s',
    (name) => {
      expect(new ToolRegistry([tool('Read')]).find(name)).toBeUndefined();
    },
  );

  it('refuses a second tool with the same name', () => {
    const registry = new ToolRegistry([tool('Read')]);
    expect(() => registry.register(tool('Read'))).toThrow('Tool Read is already registered');
  });

  it('adds and removes tools at run time (as MCP servers will)', () => {
    const registry = new ToolRegistry([tool('Read')]);
    registry.register(tool('mcp__srv__do'));
    expect(registry.names()).toEqual(['Read', 'mcp__srv__do']);
    expect(registry.unregister('mcp__srv__do')).toBe(true);
    expect(registry.unregister('mcp__srv__do')).toBe(false);
    expect(registry.names()).toEqual(['Read']);
  });

  it('builds the tools array of a request without hidden parameters', () => {
    const [spec] = new ToolRegistry([tool('Read')]).toSpecs();
    expect(spec).toEqual({
      name: 'Read',
      description: 'the Read tool',
      input_schema: {
        type: 'object',
        properties: { a: { type: 'string', description: 'a' } },
        required: ['a'],
        additionalProperties: false,
      },
    });
  });
});
