/**
 * The floors against every way a policy, a hook or a mode can ask or allow (issue 11, item 1;
 * docs/DECISIONS.md #19). Each row pairs one floor with one answer; the expected outcome is the floor's
 * refusal, except where the floor is documented as lifted by bypassPermissions (protected paths,
 * and the files a command writes outside the workspace).
 */
import { describe, expect, it } from 'vitest';
import { bashDecisionRequest } from '../helpers/bash-request.js';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { decide } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type {
  DecisionSource,
  HookDecision,
  PermissionMode,
  PermissionPolicy,
} from '../../src/permissions/types.js';

const ROOT = '/work/floors-repo';
const HOME = '/home/floors-user';
const HOOK_SCRIPT = `${ROOT}/scripts/guard.sh`;

function bash(command: string): DecisionRequest {
  return bashDecisionRequest(command, { projectDir: ROOT, homeDir: HOME });
}

function fileTool(toolName: 'Edit' | 'Write', path: string): DecisionRequest {
  const absolute = path.startsWith('/') ? path : `${ROOT}/${path}`;
  return {
    toolName,
    aliases: [],
    request: { access: 'edit', ruleContent: absolute, paths: [absolute] },
    readOnly: false,
    requiresUserInteraction: false,
    projectDir: ROOT,
    homeDir: HOME,
  };
}

interface Floor {
  name: string;
  request: DecisionRequest;
  source: DecisionSource;
  /** Rules of the policy that make this a floor (a deny rule). */
  deny?: string[];
  /** The floor is a mode of its own (plan). */
  mode?: PermissionMode;
  /** bypassPermissions lifts it (documented in docs/POLICY.md). */
  liftedByBypass?: boolean;
}

const FLOORS: Floor[] = [
  { name: 'a deny rule', request: bash('rm -rf build'), source: 'deny-rule', deny: ['Bash(rm:*)'] },
  {
    name: 'a deny rule on a file a command reads',
    request: bash('cat .env'),
    source: 'deny-rule',
    deny: ['Read(.env)'],
  },
  { name: 'removing the home directory', request: bash('rm -rf $HOME'), source: 'critical-path' },
  { name: 'removing the root', request: bash('rm -rf /'), source: 'critical-path' },
  { name: 'removing the project', request: bash('rm -rf .'), source: 'critical-path' },
  { name: 'an edit outside', request: fileTool('Edit', '/etc/hosts'), source: 'workspace' },
  { name: 'a write outside', request: fileTool('Write', `${HOME}/.npmrc`), source: 'workspace' },
  {
    name: 'a command writing outside',
    request: bash('echo pwned > /etc/cron.d/x'),
    source: 'workspace',
    liftedByBypass: true,
  },
  {
    name: 'a workflow',
    request: fileTool('Write', '.github/workflows/ci.yml'),
    source: 'judge',
  },
  {
    name: 'a composite action',
    request: fileTool('Edit', '.github/actions/setup/action.yml'),
    source: 'judge',
  },
  { name: 'the policy file', request: fileTool('Edit', '.github/ci-agent.yml'), source: 'judge' },
  {
    name: 'Claude Code settings',
    request: fileTool('Write', '.claude/settings.json'),
    source: 'judge',
  },
  { name: 'the MCP configuration', request: fileTool('Write', '.mcp.json'), source: 'judge' },
  { name: 'a hook script', request: fileTool('Write', HOOK_SCRIPT), source: 'judge' },
  {
    name: 'a command writing a hook script',
    request: bash(`cp /dev/null ${HOOK_SCRIPT}`),
    source: 'judge',
  },
  { name: 'a command removing .github', request: bash('rm -rf .github'), source: 'judge' },
  {
    name: 'a command writing a workflow',
    request: bash('echo x > .github/workflows/x.yml'),
    source: 'judge',
  },
  {
    name: 'a git hook',
    request: fileTool('Write', '.git/hooks/pre-commit'),
    source: 'protected-path',
    liftedByBypass: true,
  },
  {
    name: 'a husky hook',
    request: fileTool('Edit', '.husky/pre-commit'),
    source: 'protected-path',
    liftedByBypass: true,
  },
  {
    name: 'a command writing a git hook',
    request: bash('echo x > .git/hooks/pre-push'),
    source: 'protected-path',
    liftedByBypass: true,
  },
  { name: 'plan mode', request: fileTool('Edit', 'src/a.ts'), source: 'mode', mode: 'plan' },
];

interface Answer {
  name: string;
  mode?: PermissionMode;
  ask?: (request: DecisionRequest) => string[];
  allow?: (request: DecisionRequest) => string[];
  hook?: HookDecision['behavior'];
  onAsk?: 'default' | 'tool';
}

const wholeTool = (request: DecisionRequest) => [request.toolName];
const specific = (request: DecisionRequest) =>
  request.toolName === 'Bash'
    ? [`Bash(${request.request.ruleContent?.split(' ')[0] ?? ''}:*)`]
    : [`${request.toolName}(/**)`, 'Edit(/**)'];

const ANSWERS: Answer[] = [
  { name: 'an ask rule answered by onAsk.default: allow', ask: wholeTool, onAsk: 'default' },
  { name: 'a specific ask rule answered by onAsk.default: allow', ask: specific, onAsk: 'default' },
  { name: 'an ask rule answered by onAsk.tools: allow', ask: wholeTool, onAsk: 'tool' },
  { name: "a hook's ask answered by onAsk: allow", hook: 'ask', onAsk: 'default' },
  { name: "a hook's allow", hook: 'allow' },
  { name: 'an allow rule for the tool', allow: wholeTool },
  { name: 'a specific allow rule', allow: specific },
  { name: 'acceptEdits', mode: 'acceptEdits' },
  {
    name: 'acceptEdits with an allow rule and a hook allow',
    mode: 'acceptEdits',
    allow: wholeTool,
    hook: 'allow',
  },
  { name: 'dontAsk with an allow rule', mode: 'dontAsk', allow: wholeTool },
  { name: 'bypassPermissions', mode: 'bypassPermissions' },
  { name: 'bypassPermissions with onAsk: allow', mode: 'bypassPermissions', onAsk: 'default' },
];

function policyFor(floor: Floor, answer: Answer): PermissionPolicy {
  const rules = (texts: readonly string[]) => texts.map((text) => parseRule(text, 'policy.yml'));
  return {
    mode: floor.mode ?? answer.mode ?? 'default',
    deny: rules(floor.deny ?? []),
    ask: rules(answer.ask?.(floor.request) ?? []),
    allow: rules(answer.allow?.(floor.request) ?? []),
    askDefault: answer.onAsk === 'default' ? 'allow' : 'deny',
    askDefaultByTool: answer.onAsk === 'tool' ? { [floor.request.toolName]: 'allow' } : {},
    askDefaultSource: 'policy.yml',
    workspaceRoots: [ROOT],
    judgePaths: [HOOK_SCRIPT],
  };
}

const ROWS = FLOORS.flatMap((floor) =>
  ANSWERS.filter((answer) => !(floor.mode && answer.mode)).map(
    (answer) => [floor.name, answer.name, floor, answer] as const,
  ),
);

describe('decide against the floors', () => {
  it('has a row for every floor and every answer', () => {
    const planAnswers = ANSWERS.filter((answer) => !answer.mode).length;
    expect(ROWS).toHaveLength((FLOORS.length - 1) * ANSWERS.length + planAnswers);
  });

  it.each(ROWS)('refuses %s, whatever %s says', (_floor, _answer, floor, answer) => {
    const policy = policyFor(floor, answer);
    const request: DecisionRequest = {
      ...floor.request,
      ...(answer.hook && { hook: { behavior: answer.hook, source: 'hook.sh', reason: 'ok' } }),
    };
    const decision = decide(request, policy);
    if (floor.liftedByBypass && policy.mode === 'bypassPermissions') {
      expect(decision).toMatchObject({ behavior: 'allow', source: 'mode' });
      return;
    }
    expect(decision).toMatchObject({ behavior: 'deny', source: floor.source, askResolved: false });
  });

  it.each(['echo hi | tee /dev/stderr', 'npm test > /dev/null 2>&1', 'echo x >/dev/stdout'])(
    'takes %j for a command writing no file outside',
    (command) => {
      const policy = policyFor(
        { name: 'none', request: bash(command), source: 'default' },
        ANSWERS[5]!,
      );
      expect(decide(bash(command), policy)).toMatchObject({
        behavior: 'allow',
        source: 'allow-rule',
      });
    },
  );

  it('lets the same answers through where no floor stands', () => {
    const inside = fileTool('Edit', 'src/a.ts');
    const floorless: Floor = { name: 'none', request: inside, source: 'default' };
    for (const answer of ANSWERS.filter((candidate) => candidate.mode !== 'dontAsk')) {
      const request = {
        ...inside,
        ...(answer.hook && { hook: { behavior: answer.hook, source: 'hook.sh' } }),
      };
      expect(decide(request, policyFor(floorless, answer)).behavior, answer.name).toBe('allow');
    }
  });
});
