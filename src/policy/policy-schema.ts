/**
 * The schema of the ci-agent policy file (`.github/ci-agent.yml`). This file is ours, so it is
 * strict: unknown keys, wrong types and bad rule strings are errors (docs/POLICY.md lists every
 * field). Each leaf carries its expected form as its error, which the message formatter completes
 * with the value found.
 */
import { parseAllowedDomains } from '../sandbox/allowed-domains.js';
import { posix } from 'node:path';
import * as z from 'zod';
import { HOOK_EVENTS } from '../hooks/config.js';
import { mcpPolicySchema } from '../mcp/mcp-policy.js';
import { PERMISSION_MODES } from '../permissions/types.js';
import {
  EVENTS_WITHOUT_MATCHER,
  matcherProblem,
  TOOL_ALIASES,
  TOOL_MATCHER_EVENTS,
} from './claude-code-names.js';
import { closestMatch } from './did-you-mean.js';
import { makeRule, ruleNotice, ruleProblem } from './rule-text.js';
import { matcherToolProblem, ruleToolProblem, TOOL_NAMES } from './tool-names.js';

/** Issues that already say everything; the formatter adds no "got …". */
export const COMPLETE = { complete: true } as const;

/** A rule string that parses and works as written; in our own file a rule that cannot is an error. */
function ruleList(kind: 'allow' | 'deny' | 'ask') {
  const rule = z
    .string({ error: 'expected a permission rule string such as "Read" or "Bash(npm test:*)"' })
    .superRefine((text, context) => {
      const problem = ruleProblem(text);
      if (problem !== undefined) {
        context.addIssue({ code: 'custom', message: problem, input: text });
        return;
      }
      const notice = ruleNotice(makeRule(text, '', ''), kind);
      if (notice !== undefined) {
        context.addIssue({ code: 'custom', message: notice, input: text, params: COMPLETE });
      }
    });
  return z.array(rule, { error: 'expected a list of permission rule strings' });
}

const askBehavior = z.enum(['allow', 'deny'], { error: 'expected "allow" or "deny"' });

const onAskSchema = z
  .strictObject(
    {
      default: askBehavior.optional(),
      tools: z
        .record(z.string(), askBehavior, {
          error: 'expected a map of tool name to "allow" or "deny"',
        })
        .optional(),
    },
    { error: 'expected a mapping with "default" and "tools"' },
  )
  .superRefine((onAsk, context) => {
    for (const name of Object.keys(onAsk.tools ?? {})) {
      if (TOOL_NAMES.includes(name) || name.startsWith('mcp__')) continue;
      const suggestion = closestMatch(name, TOOL_NAMES);
      const wellFormed = /^[A-Za-z_][\w-]*$/.test(name);
      if (suggestion === undefined && wellFormed) continue;
      context.addIssue({
        code: 'custom',
        path: ['tools', name],
        params: COMPLETE,
        message:
          suggestion === undefined
            ? `${JSON.stringify(name)} is not a tool name`
            : `unknown tool ${JSON.stringify(name)}; did you mean ${JSON.stringify(suggestion)}?`,
      });
    }
    const aliased = Object.entries(TOOL_ALIASES).filter(
      ([alias, target]) => onAsk.tools?.[alias] !== undefined && onAsk.tools[target] !== undefined,
    );
    for (const [alias, target] of aliased) {
      if (onAsk.tools?.[alias] === onAsk.tools?.[target]) continue;
      context.addIssue({
        code: 'custom',
        path: ['tools', alias],
        params: COMPLETE,
        message: `${alias} is another name for ${target}, which says otherwise; keep one`,
      });
    }
  });

const permissionsSchema = z.strictObject(
  {
    allow: ruleList('allow').optional(),
    deny: ruleList('deny').optional(),
    ask: ruleList('ask').optional(),
    defaultMode: z
      .enum(PERMISSION_MODES, { error: `expected one of ${PERMISSION_MODES.join(', ')}` })
      .optional(),
    additionalDirectories: z
      .array(z.string({ error: 'expected a directory path' }).min(1), {
        error: 'expected a list of directory paths',
      })
      .optional(),
    onAsk: onAskSchema.optional(),
  },
  { error: 'expected a mapping with allow, deny, ask, defaultMode, additionalDirectories, onAsk' },
);

const handlerSchema = z.strictObject(
  {
    type: z.literal('command', { error: 'expected "command" (the only hook type ci-agent runs)' }),
    command: z.string({ error: 'expected a shell command string' }).trim().min(1),
    timeout: z.number({ error: 'expected a positive number of seconds' }).positive().optional(),
    required: z.boolean({ error: 'expected true or false' }).optional(),
    if: z
      .string({ error: 'expected a permission rule string such as "Bash(git push:*)"' })
      .superRefine((text, context) => {
        const problem = ruleProblem(text);
        if (problem !== undefined) {
          context.addIssue({ code: 'custom', message: problem, input: text });
          return;
        }
        const dead = ruleToolProblem(makeRule(text, '', ''), 'if');
        if (dead !== undefined)
          context.addIssue({ code: 'custom', message: dead, input: text, params: COMPLETE });
      })
      .optional(),
  },
  { error: 'expected a hook such as {type: command, command: "npm test"}' },
);

const matcherSchema = z
  .string({ error: 'expected a tool-name matcher string' })
  .superRefine((matcher, context) => {
    const problem = matcherProblem(matcher);
    if (problem !== undefined)
      context.addIssue({ code: 'custom', message: problem, input: matcher });
  });

const groupSchema = z.strictObject(
  {
    matcher: matcherSchema.optional(),
    hooks: z.array(handlerSchema, { error: 'expected a list of hooks' }),
  },
  { error: 'expected a group such as {matcher: Bash, hooks: [...]}' },
);

const eventShape = Object.fromEntries(
  HOOK_EVENTS.map((event) => [
    event,
    z.array(groupSchema, { error: 'expected a list of {matcher, hooks} groups' }).optional(),
  ]),
);

const hooksSchema = z
  .strictObject(eventShape, { error: 'expected a mapping of hook event to groups' })
  .superRefine((hooks, context) => {
    for (const [event, groups] of Object.entries(hooks)) {
      for (const [index, group] of (groups ?? []).entries()) {
        if (group.matcher !== undefined && EVENTS_WITHOUT_MATCHER.includes(event)) {
          context.addIssue({
            code: 'custom',
            path: [event, index, 'matcher'],
            params: COMPLETE,
            message: `${event} hooks have nothing to match; remove the matcher`,
          });
        }
        const deadNames =
          group.matcher !== undefined && TOOL_MATCHER_EVENTS.includes(event)
            ? matcherToolProblem(group.matcher)
            : undefined;
        if (deadNames !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [event, index, 'matcher'],
            params: COMPLETE,
            message: deadNames,
          });
        }
        if (event === 'PreToolUse') continue;
        for (const [handlerIndex, handler] of group.hooks.entries()) {
          if (handler.required === undefined) continue;
          context.addIssue({
            code: 'custom',
            path: [event, index, 'hooks', handlerIndex, 'required'],
            params: COMPLETE,
            message: '"required" applies only to PreToolUse hooks (a hook that can block a call)',
          });
        }
      }
    }
  });

const settingsPath = z
  .string({ error: 'expected a settings file path relative to the project root' })
  .min(1)
  .refine(
    (path) => !posix.isAbsolute(path) && !posix.normalize(path).startsWith('../'),
    'expected a settings file path inside the project (relative, no "..")',
  );

const limitsSchema = z.strictObject(
  {
    maxTurns: z.number({ error: 'expected a positive whole number' }).int().positive().optional(),
    maxBudgetUsd: z
      .number({ error: 'expected a positive amount in US dollars' })
      .positive()
      .optional(),
    timeoutMinutes: z
      .number({ error: 'expected a positive number of minutes' })
      .positive()
      .optional(),
  },
  { error: 'expected a mapping with maxTurns, maxBudgetUsd, timeoutMinutes' },
);

const envSchema = z.strictObject(
  {
    passEnv: z
      .array(
        z
          .string({ error: 'expected an environment variable name' })
          .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/),
        { error: 'expected a list of environment variable names' },
      )
      .optional(),
  },
  { error: 'expected a mapping with passEnv' },
);

const pushSchema = z.strictObject(
  {
    allowCiChanges: z.boolean({ error: 'expected true or false' }).optional(),
  },
  { error: 'expected a mapping with allowCiChanges' },
);

const pathList = z
  .array(z.string({ error: 'expected a path: ~/…, absolute, or relative to the project' }).min(1), {
    error: 'expected a list of paths',
  })
  .optional();

const sandboxSchema = z.union(
  [
    z.literal('off'),
    z.literal(false),
    z.strictObject(
      {
        network: z
          .strictObject(
            {
              allowedDomains: z
                .array(
                  z
                    .string({
                      error: 'expected a domain such as registry.npmjs.org or *.example.com',
                    })
                    .min(1)
                    .superRefine((entry, context) => {
                      const [error] = parseAllowedDomains([entry]).errors;
                      if (error) {
                        context.addIssue({
                          code: 'custom',
                          message: error.replace(/^sandbox\.network\.allowedDomains: /, ''),
                        });
                      }
                    }),
                  { error: 'expected a list of domains' },
                )
                .optional(),
            },
            { error: 'expected a mapping with allowedDomains' },
          )
          .optional(),
        filesystem: z
          .strictObject(
            { allowWrite: pathList, denyWrite: pathList, denyRead: pathList, allowRead: pathList },
            { error: 'expected a mapping with allowWrite, denyWrite, denyRead, allowRead' },
          )
          .optional(),
      },
      { error: 'expected a mapping with network, filesystem' },
    ),
  ],
  {
    error:
      'expected off (run unsandboxed) or a mapping with network.allowedDomains and filesystem.allowWrite/denyWrite/denyRead/allowRead',
  },
);

export const policyFileSchema = z.strictObject(
  {
    permissions: permissionsSchema.optional(),
    hooks: hooksSchema.optional(),
    settings: z
      .union([z.literal(false), z.array(settingsPath)], {
        error: 'expected a list of settings file paths, or false for none',
      })
      .optional(),
    limits: limitsSchema.optional(),
    env: envSchema.optional(),
    mcp: mcpPolicySchema.optional(),
    push: pushSchema.optional(),
    sandbox: sandboxSchema.optional(),
  },
  {
    error: 'expected a mapping with permissions, hooks, settings, limits, env, mcp, push, sandbox',
  },
);

export type PolicyFileContent = z.infer<typeof policyFileSchema>;
