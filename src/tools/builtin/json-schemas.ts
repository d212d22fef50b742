/**
 * The built-in tools' input schemas as JSON Schema, by tool name, when the build computed them:
 * scripts/build.mjs puts here what scripts/tool-schemas.ts prints, so that the bundle does not
 * convert the zod schemas on the main thread before its first model request (docs/BENCHMARKS.md,
 * "The action's start-up"). In the sources none: each tool converts its own on first use
 * (tool.ts), from the same zod schemas the build converted.
 */
import type { JsonSchema } from '../../model/types.js';

export const builtJsonSchemas: Readonly<Record<string, JsonSchema>> | undefined = undefined;
