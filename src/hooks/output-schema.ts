/**
 * The JSON a hook may print on stdout (docs/CC-COMPAT.md §1.7). Objects are not strict: unknown keys
 * are ignored, so non-standard outputs seen in the wild (`{"action":"continue"}`,
 * `{"block":true}`) are valid no-ops. A wrong type or enum value fails validation.
 */
import * as z from 'zod';
import { errorMessage } from '../util/errors.js';
import type { HookEventName } from './config.js';

/** Hook output strings reach the model or the log; longer ones are cut (current CC caps). */
export const MAX_HOOK_TEXT_CHARS = 10_000;

const hookSpecificOutputSchema = z.object({
  hookEventName: z.string(),
  /** `defer` (current CC) has no meaning without a resumable session; it is treated as ask. */
  permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
  permissionDecisionReason: z.string().optional(),
  /** Replaces the whole tool input; the pipeline validates it again with the tool's schema. */
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
});

export const hookOutputSchema = z.object({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  /** Accepted for compatibility; it changes nothing in a CI log. */
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  /** `approve` matters to PreToolUse only (deprecated form of allow). */
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: hookSpecificOutputSchema.optional(),
});

export type HookOutput = z.infer<typeof hookOutputSchema>;

export type ParsedStdout =
  | { kind: 'empty' }
  | { kind: 'text'; text: string }
  | { kind: 'json'; output: HookOutput }
  | { kind: 'invalid'; error: string };

/** Exit-0 stdout: JSON when it starts with `{` after trimming, plain text otherwise. */
export function parseHookStdout(stdout: string, event: HookEventName): ParsedStdout {
  const trimmed = stdout.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (!trimmed.startsWith('{')) return { kind: 'text', text: trimmed };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return { kind: 'invalid', error: `printed invalid JSON on stdout (${errorMessage(error)})` };
  }
  const parsed = hookOutputSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return { kind: 'invalid', error: `printed JSON that failed validation (${issues})` };
  }
  const name = parsed.data.hookSpecificOutput?.hookEventName;
  if (name !== undefined && name !== event) {
    return {
      kind: 'invalid',
      error: `printed hookSpecificOutput for "${name}" but ran for ${event}`,
    };
  }
  return { kind: 'json', output: parsed.data };
}

export function capText(text: string): string {
  if (text.length <= MAX_HOOK_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_HOOK_TEXT_CHARS)}… [${text.length - MAX_HOOK_TEXT_CHARS} more characters cut]`;
}
