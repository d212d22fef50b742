/**
 * What the model sees: the name, description and JSON Schema of every built-in tool. A change
 * here changes the model's view of the tools; review the snapshot diff like an API change.
 */
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../../src/tools/builtin/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';

describe('built-in tool schemas', () => {
  const specs = new ToolRegistry(builtinTools).toSpecs();

  it.each(specs.map((spec) => [spec.name, spec] as const))(
    '%s matches its snapshot',
    (_name, spec) => {
      expect(spec).toMatchSnapshot();
    },
  );

  it('never shows a hidden parameter to the model', () => {
    for (const tool of builtinTools) {
      const properties = Object.keys(tool.jsonSchema().properties ?? {});
      for (const hidden of tool.hiddenKeys) expect(properties).not.toContain(hidden);
      expect(tool.jsonSchema().additionalProperties).toBe(false);
    }
  });

  it('has at least one hidden parameter the system uses', () => {
    expect(builtinTools.flatMap((tool) => tool.hiddenKeys).length).toBeGreaterThan(0);
  });

  it('describes every parameter', () => {
    for (const spec of specs) {
      const properties = (spec.input_schema.properties ?? {}) as Record<
        string,
        { description?: string }
      >;
      for (const [name, property] of Object.entries(properties)) {
        expect(property.description, `${spec.name}.${name}`).toBeTruthy();
      }
    }
  });
});
