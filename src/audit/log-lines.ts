/**
 * The shapes of the tool log's lines that the audit reads (src/log/stream-json.ts writes them),
 * as zod schemas: loose objects, so a field they do not name (a chain hash, a later version's
 * addition) passes; only the fields the audit relies on are checked.
 */
import * as z from 'zod';

const text = z.string();
const optionalNumber = z.number().nullish();
const parent = z.string().nullish();

export const contentBlock = z.looseObject({ type: z.string() });
export const assistantLine = z.looseObject({
  type: z.literal('assistant'),
  message: z.looseObject({ content: z.array(contentBlock) }),
  parent_tool_use_id: parent,
});
export const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: text,
  name: text,
  input: z.unknown(),
});
export const textBlock = z.looseObject({ type: z.literal('text'), text });
export const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: text,
  content: z.union([text, z.array(contentBlock)]).optional(),
  is_error: z.boolean().nullish(),
});
export const userLine = z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({ content: z.union([text, z.array(contentBlock)]) }),
});
export const decisionLine = z.looseObject({
  tool_use_id: text,
  tool_name: text,
  behavior: z.enum(['allow', 'deny']),
  ask_resolved: z.boolean().optional(),
  decision_source: text,
  rules: z.array(z.looseObject({ rule: text, source: text })),
  reason: text,
  suggestion: z.looseObject({ text }).nullish(),
});
export const hookLine = z.looseObject({
  tool_use_id: text.nullish(),
  event: text,
  command: text,
  matcher: text.nullish(),
  status: text.nullish(),
  exitCode: z.number().nullable(),
  durationMs: optionalNumber,
  decision: text.nullish(),
  error: text.nullish(),
  stderrExcerpt: text.nullish(),
  systemMessage: text.nullish(),
  source: text.nullish(),
  required: z.boolean().nullish(),
});
export const callEndLine = z.looseObject({
  tool_use_id: text,
  stage: text,
  duration_ms: z.number(),
  is_error: z.boolean(),
});
export const subagentLine = z.looseObject({
  parent_tool_use_id: text,
  agent_id: text,
  agent_type: text,
  status: text.nullish(),
  num_turns: optionalNumber,
  duration_ms: optionalNumber,
});
export const initLine = z.looseObject({
  cwd: text.nullish(),
  model: text.nullish(),
  permissionMode: text.nullish(),
  ci_agent_version: text.nullish(),
  ci_agent_sandbox: text.nullish(),
});
export const resultLine = z.looseObject({
  subtype: text,
  is_error: z.boolean(),
  num_turns: optionalNumber,
  duration_ms: optionalNumber,
  total_cost_usd: optionalNumber,
  result: text.nullish(),
  errors: z.array(text).nullish(),
  permission_denials: z.array(z.unknown()).nullish(),
});
