/**
 * One permission decision for a 20-part compound Bash command against a 300-rule policy.
 *
 * 1. Build a realistic policy: Bash prefixes and exact commands (allow, deny, ask), Read/Edit path
 *    rules across the four anchors, bare tool names, MCP servers, tools and globs.
 * 2. Build a 20-part command (operators, pipes, a substitution, a `bash -c`, wrappers, an env
 *    prefix) whose parts are each allowed by some rule and match no deny or ask rule, so every
 *    rule is consulted.
 * 3. Median of many decisions, each on a fresh request as the pipeline makes one (the command is
 *    parsed inside the measured time). Baseline: the same decision against an empty policy; also
 *    shown: the parse alone, and allowRulesCovering (each part allowed by its own rule).
 * Target: median under 1 ms.
 */
import { decide } from '../src/permissions/decide.js';
import type { DecisionRequest } from '../src/permissions/decide.js';
import { analyzeBashCommand } from '../src/permissions/bash-views.js';
import { allowRulesCovering, parseRule } from '../src/permissions/rules.js';
import type { PermissionPolicy, PermissionRule } from '../src/permissions/types.js';
import { fmt, median, percentile, printTable } from './stats.js';

const PROJECT = '/work/repo';
const HOME = '/home/runner';

const COMMAND = [
  'npm ci --no-audit',
  'npm run lint -- --max-warnings 0',
  'npm run build',
  'npm test -- --reporter dot 2>&1 | tail -n 50',
  'git status --porcelain',
  'git diff --stat origin/main...HEAD',
  'git log --oneline -n 20 | head -n 5',
  'echo "built $(git rev-parse --short HEAD)"',
  'timeout 120 npx tsc --noEmit -p .',
  'CI=1 npx vitest run --coverage',
  'grep -rn TODO src | head -n 20',
  "bash -c 'node --version && npm --version'",
  'cat package.json',
  'echo done',
].join(' && ');

function buildPolicy(): PermissionPolicy {
  const rules = (texts: string[]) => texts.map((text) => parseRule(text, 'bench'));
  const scripts = ['build', 'lint', 'test', 'typecheck', 'format', 'bench', 'dev', 'start'];
  const tools = ['npx tsc', 'npx vitest', 'npx eslint', 'npx prettier', 'node', 'cat', 'ls'];
  const gitReads = ['status', 'diff', 'log', 'show', 'rev-parse', 'branch', 'blame', 'ls-files'];
  const allowBash = [
    ...scripts.flatMap((name) => [`Bash(npm run ${name}:*)`, `Bash(pnpm run ${name} *)`]),
    ...tools.map((name) => `Bash(${name} *)`),
    ...gitReads.map((name) => `Bash(git ${name}:*)`),
    'Bash(npm ci:*)',
    'Bash(npm test:*)',
    'Bash(npm --version)',
    'Bash(echo:*)',
    'Bash(tail *)',
    'Bash(head *)',
    'Bash(wc *)',
    'Bash(grep *)',
    'Bash(CI=1 npx vitest *)',
    'Bash(bash -c *)',
    ...Array.from({ length: 60 }, (_, index) => `Bash(./scripts/task-${index}.sh *)`),
  ];
  const allowPaths = [
    ...Array.from({ length: 30 }, (_, index) => `Edit(packages/pkg-${index}/src/**)`),
    'Read(//usr/share/doc/**)',
    'Read(~/.npmrc)',
    'Read(/docs/**)',
  ];
  const allowNames = [
    'Read',
    'Glob',
    'Grep',
    'TodoWrite',
    'WebSearch',
    'mcp__github',
    'mcp__linear__*',
  ];
  const allowMcp = Array.from({ length: 20 }, (_, index) => `mcp__server${index}__tool${index}`);
  const allow = [...allowBash, ...allowPaths, ...allowNames, ...allowMcp];

  const denyBash = [
    'Bash(rm -rf:*)',
    'Bash(sudo:*)',
    'Bash(curl *)',
    'Bash(wget *)',
    'Bash(git push:*)',
    'Bash(git reset --hard:*)',
    'Bash(npm publish:*)',
    'Bash(docker *)',
    'Bash(ssh *)',
    'Bash(scp *)',
    ...Array.from({ length: 30 }, (_, index) => `Bash(dangerous-${index} *)`),
  ];
  const denyPaths = [
    'Read(.env)',
    'Read(.env.*)',
    'Read(**/*.pem)',
    'Read(~/.ssh/**)',
    'Read(~/.aws/**)',
    'Read(//etc/shadow)',
    'Read(secrets/**)',
    'Edit(.github/workflows/**)',
    ...Array.from({ length: 20 }, (_, index) => `Read(private-${index}/**)`),
  ];
  const deny = [...denyBash, ...denyPaths, 'mcp__*__delete_*', 'WebFetch(domain:*.internal)'];

  const ask = [
    ...Array.from({ length: 20 }, (_, index) => `Bash(deploy-${index}:*)`),
    'Bash(git commit:*)',
    'Bash(npm install:*)',
    'Edit(package.json)',
    'Edit(package-lock.json)',
    'WebFetch',
    'mcp__slack',
  ];
  const all = { allow: rules(allow), deny: rules(deny), ask: rules(ask) };
  const total = all.allow.length + all.deny.length + all.ask.length;
  // Fill to exactly 300 with more allow prefixes of the same shape.
  const filler: PermissionRule[] = rules(
    Array.from({ length: Math.max(0, 300 - total) }, (_, index) => `Bash(make target-${index}:*)`),
  );
  return {
    mode: 'default',
    allow: [...all.allow, ...filler],
    deny: all.deny,
    ask: all.ask,
    askDefault: 'deny',
    workspaceRoots: [PROJECT],
  };
}

function request(): DecisionRequest {
  return {
    toolName: 'Bash',
    aliases: [],
    request: { access: 'execute', ruleContent: COMMAND },
    projectDir: PROJECT,
    homeDir: HOME,
    readOnly: false,
    requiresUserInteraction: false,
  };
}

/** Samples of each run, interleaved so that machine noise falls on all of them alike. */
function measure<Name extends string>(
  runs: Record<Name, () => unknown>,
  iterations: number,
): Record<Name, number[]> {
  const names = Object.keys(runs) as Name[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    Name,
    number[]
  >;
  for (let index = 0; index < iterations; index++) {
    for (const name of names) {
      const started = performance.now();
      runs[name]();
      samples[name].push(performance.now() - started);
    }
  }
  return samples;
}

export async function runDecisionBench(): Promise<{ medianMs: number }> {
  const policy = buildPolicy();
  const empty: PermissionPolicy = { ...policy, allow: [], deny: [], ask: [] };
  const ruleCount = policy.allow.length + policy.deny.length + policy.ask.length;
  const analysis = analyzeBashCommand(COMMAND);
  const parts = analysis.ok ? analysis.parts.length : 0;
  // No deny or ask rule may match, or the decision would stop before consulting every rule.
  const check = decide(request(), policy);
  if (check.source !== 'allow-rule' && check.source !== 'default') {
    throw new Error(`the bench command should reach the allow rules, got: ${check.reason}`);
  }
  if (allowRulesCovering(policy.allow, request()).length === 0) {
    throw new Error('every part of the bench command should be allowed by some rule');
  }

  const iterations = 5_000;
  const runs = {
    parse: () => analyzeBashCommand(COMMAND),
    empty: () => decide(request(), empty),
    full: () => decide(request(), policy),
    covering: () => allowRulesCovering(policy.allow, request()),
  };
  measure(runs, 500); // warm-up
  const { parse, empty: baseline, full, covering } = measure(runs, iterations);
  const row = (run: string, samples: number[]) => ({
    run,
    median: fmt(median(samples), 4),
    p95: fmt(percentile(samples, 95), 4),
  });
  printTable(`Permission decision, ${parts}-part Bash command (ms per decision)`, [
    row('empty policy (baseline)', baseline),
    row('parse alone', parse),
    row(`${ruleCount}-rule policy`, full),
    row(`allowRulesCovering, ${policy.allow.length} allow rules`, covering),
  ]);
  console.log(`decision: ${check.behavior} (${check.source}): ${check.reason}`);
  const medianMs = median(full);
  console.log(
    `median ${fmt(medianMs, 4)} ms per decision (target < 1 ms); ratio to baseline ${fmt(medianMs / median(baseline), 1)}×`,
  );
  return { medianMs };
}

if (import.meta.url === `file://${process.argv[1]}`) await runDecisionBench();
