/**
 * Prints the built-in tools' input schemas as JSON Schema, by tool name (one JSON object), for
 * scripts/build.mjs to put into the bundle (src/tools/builtin/json-schemas.ts).
 *
 *   npx tsx scripts/tool-schemas.ts
 */
import { builtinTools } from '../src/tools/builtin/index.js';

process.stdout.write(
  JSON.stringify(Object.fromEntries(builtinTools.map((tool) => [tool.name, tool.jsonSchema()]))),
);
