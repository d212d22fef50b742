/**
 * The `hooks` of a Claude Code settings file, read as Claude Code reads them: an unknown event or
 * a malformed entry is skipped with a warning and never invalidates the file (docs/CC-COMPAT.md §1.1).
 */
import type {
  HookEventName,
  HookHandlerConfig,
  HookMatcherGroup,
  HooksConfig,
} from '../hooks/config.js';
import { HOOK_EVENTS } from '../hooks/config.js';
import {
  EVENTS_WITHOUT_MATCHER,
  matcherProblem,
  TOOL_MATCHER_EVENTS,
  UNSUPPORTED_HANDLER_KEYS,
  UNSUPPORTED_HOOK_EVENTS,
} from './claude-code-names.js';
import { didYouMean } from './did-you-mean.js';
import { ruleProblem } from './rule-text.js';
import { matcherToolProblem, ruleToolProblem } from './tool-names.js';
import { parseRule } from '../permissions/rules.js';
import type { Findings } from './findings.js';
import { isPlainObject } from './findings.js';
import type { PathSegment } from './policy-error.js';

const GROUP_SHAPE = 'expected {"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}';
const OTHER_HOOK_TYPES = ['prompt', 'agent', 'http', 'mcp_tool'];

export function readSettingsHooks(value: unknown, source: string, findings: Findings): HooksConfig {
  const hooks: HooksConfig = {};
  if (!isPlainObject(value)) {
    findings.warn(['hooks'], 'expected an object of hook events; ignored');
    return hooks;
  }
  for (const [event, groups] of Object.entries(value)) {
    const path = ['hooks', event];
    if (!isHookEvent(event)) {
      findings.warn(path, unknownEventMessage(event), true);
      continue;
    }
    if (!Array.isArray(groups)) {
      findings.warn(path, 'expected a list of {"matcher", "hooks"} groups; ignored');
      continue;
    }
    const kept = groups.flatMap((group, index) => {
      const read = readGroup(event, group, [...path, index], source, findings);
      return read ? [read] : [];
    });
    if (kept.length > 0) hooks[event] = kept;
  }
  return hooks;
}

function isHookEvent(name: string): name is HookEventName {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

function unknownEventMessage(event: string): string {
  if (UNSUPPORTED_HOOK_EVENTS.includes(event))
    return `ci-agent does not run ${event} hooks; ignored`;
  return `unknown hook event ${JSON.stringify(event)}; ignored${didYouMean(event, HOOK_EVENTS)}`;
}

function readGroup(
  event: HookEventName,
  group: unknown,
  path: PathSegment[],
  source: string,
  findings: Findings,
): HookMatcherGroup | undefined {
  if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
    findings.warn(path, `${GROUP_SHAPE}; entry skipped`);
    return undefined;
  }
  let matcher: string | undefined;
  if (group.matcher !== undefined) {
    const problem =
      typeof group.matcher === 'string' ? matcherProblem(group.matcher) : 'expected a string';
    if (problem !== undefined) {
      findings.warn([...path, 'matcher'], `${problem}; entry skipped`);
      return undefined;
    }
    if (EVENTS_WITHOUT_MATCHER.includes(event)) {
      findings.warn([...path, 'matcher'], `${event} hooks have nothing to match; matcher ignored`);
    } else {
      matcher = group.matcher as string;
      // Kept as written, like a rule naming no tool: the warning says the hook never runs.
      const dead = TOOL_MATCHER_EVENTS.includes(event) ? matcherToolProblem(matcher) : undefined;
      if (dead !== undefined) findings.warn([...path, 'matcher'], dead);
    }
  }
  for (const key of Object.keys(group)) {
    if (key !== 'matcher' && key !== 'hooks')
      findings.warn([...path, key], 'unknown key; ignored', true);
  }
  const handlers = group.hooks.flatMap((handler, index) => {
    const read = readHandler(handler, [...path, 'hooks', index], source, findings);
    return read ? [read] : [];
  });
  if (handlers.length === 0) return undefined;
  return { ...(matcher === undefined ? {} : { matcher }), hooks: handlers };
}

function readHandler(
  handler: unknown,
  path: PathSegment[],
  source: string,
  findings: Findings,
): HookHandlerConfig | undefined {
  if (!isPlainObject(handler)) {
    findings.warn(path, 'expected {"type": "command", "command": "..."}; hook skipped');
    return undefined;
  }
  if (handler.type !== 'command') {
    const known = typeof handler.type === 'string' && OTHER_HOOK_TYPES.includes(handler.type);
    findings.warn(
      [...path, 'type'],
      known
        ? `ci-agent runs only "command" hooks, not ${JSON.stringify(handler.type)}; hook skipped`
        : 'expected "command"; hook skipped',
    );
    return undefined;
  }
  if (typeof handler.command !== 'string' || handler.command.trim() === '') {
    findings.warn([...path, 'command'], 'expected a shell command string; hook skipped');
    return undefined;
  }
  if (handler.args !== undefined) {
    findings.warn(
      [...path, 'args'],
      'exec-form hooks ("args") are not supported; hook skipped',
      true,
    );
    return undefined;
  }
  const result: HookHandlerConfig = { type: 'command', command: handler.command, source };
  for (const [key, value] of Object.entries(handler)) {
    if (key === 'type' || key === 'command') continue;
    if (key === 'timeout') {
      if (typeof value === 'number' && Number.isFinite(value) && value > 0) result.timeout = value;
      else
        findings.warn([...path, key], 'expected a positive number of seconds; the default applies');
    } else if (key === 'required') {
      findings.warn(
        [...path, key],
        'only the ci-agent policy file can mark a hook required; ignored',
        true,
      );
    } else if (key === 'if') {
      const problem = typeof value === 'string' ? ruleProblem(value) : 'expected a permission rule';
      if (problem === undefined) {
        result.if = value as string;
        // Kept as written, like any rule in a settings file: the warning says it never matches.
        const dead = ruleToolProblem(parseRule(value as string, source), 'if');
        if (dead !== undefined) findings.warn([...path, key], dead);
      } else {
        // Running it for every call could block calls it was never meant for: skip it instead.
        findings.warn([...path, key], `${problem}; hook skipped`, true);
        return undefined;
      }
    } else if (UNSUPPORTED_HANDLER_KEYS.includes(key)) {
      findings.warn(
        [...path, key],
        `the hook field ${JSON.stringify(key)} is not supported by ci-agent; ignored`,
        true,
      );
    } else {
      findings.warn([...path, key], 'unknown key; ignored', true);
    }
  }
  return result;
}
