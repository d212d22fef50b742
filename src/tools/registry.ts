/**
 * The tools a session can call. Names come from the model, so lookups are own-property only:
 * `constructor`, `__proto__` and friends resolve to nothing.
 */
import type { Tool } from './tool.js';
import type { ToolSpec } from '../model/types.js';

export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; a second tool with the same name is a programming error. */
  register(tool: Tool): void {
    if (this.byName.has(tool.name)) throw new Error(`Tool ${tool.name} is already registered`);
    this.byName.set(tool.name, tool);
  }

  unregister(name: string): boolean {
    return this.byName.delete(name);
  }

  /** The tool the model named, or undefined. Aliases are for rules and matchers, not for calls. */
  find(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  list(): Tool[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The `tools` array of a Messages API request. */
  toSpecs(): ToolSpec[] {
    return this.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.jsonSchema(),
    }));
  }
}
