/**
 * The built-in tools' JSON Schemas the build puts into the bundle (scripts/tool-schemas.ts →
 * src/tools/builtin/json-schemas.ts): computed in a process of their own, with an environment
 * that is not the run's, they must be what each tool converts at run time, for every tool. A
 * schema that depended on the environment or on the session would differ here.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { toModelJsonSchema } from '../../src/tools/tool.js';

describe('scripts/tool-schemas.ts', () => {
  it("prints every built-in tool's JSON Schema, as the tool converts it at run time", async () => {
    const { stdout } = await execa('node_modules/.bin/tsx', ['scripts/tool-schemas.ts'], {
      env: { PATH: process.env.PATH, HOME: '/nonexistent', CI: '' },
      extendEnv: false,
    });
    const printed = JSON.parse(stdout) as Record<string, unknown>;

    expect(Object.keys(printed).sort()).toEqual(builtinTools.map((tool) => tool.name).sort());
    for (const tool of builtinTools) {
      expect(printed[tool.name], tool.name).toEqual(toModelJsonSchema(tool.inputSchema));
      expect(printed[tool.name], tool.name).toMatchObject({ type: 'object' });
    }
  }, 60_000);
});
