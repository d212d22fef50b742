/**
 * What the trigger tests of the built action share: a repository whose `mean()` skips the first
 * value, a check that fails on it, PR #2 from the branch `changes`, the model session that fixes
 * it, and real webhook payloads pointed at the seeded repository.
 */
import { expect } from 'vitest';
import type { RunSeed } from '../../testkit/github-server/index.js';
import type { ReplayScriptEntry } from '../../testkit/replay-server.js';
import { webhookExample } from '../github/webhook-examples.js';
import { FULL_NAME, OWNER, REPO, startActionHarness } from '../helpers/action-harness.js';
import type { ActionHarness } from '../helpers/action-harness.js';

export const BROKEN =
  'export function mean(values) {\n  let total = 0;\n  for (let i = 1; i < values.length; i++) total += values[i];\n  return total / values.length;\n}\n';
export const FIXED = BROKEN.replace('let i = 1', 'let i = 0');
export const POLICY = 'permissions:\n  onAsk:\n    default: deny\n    tools:\n      Edit: allow\n';
export const CHECK =
  "import { mean } from './src/stats.js';\nconst got = mean([1, 2, 3]);\nif (got !== 2) {\n  console.error(`mean([1, 2, 3]): expected 2, got ${got}`);\n  process.exit(1);\n}\nconsole.log('mean ok');\n";
export const FILES = { 'src/stats.js': BROKEN, 'check.mjs': CHECK, '.github/ci-agent.yml': POLICY };
export const TEST_COMMAND = 'node check.mjs';
export const HEAD = 'changes';
export const PR = 2;

/** Read the file, fix the loop, say so: the session the model replays. */
export function fixTurns(root: string): ReplayScriptEntry[] {
  return [
    [
      {
        type: 'tool_use',
        id: 'toolu_01',
        name: 'Read',
        input: { file_path: `${root}/src/stats.js` },
      },
    ],
    [
      {
        type: 'tool_use',
        id: 'toolu_02',
        name: 'Edit',
        input: {
          file_path: `${root}/src/stats.js`,
          old_string: 'let i = 1',
          new_string: 'let i = 0',
        },
      },
    ],
    [{ type: 'text', text: 'The loop skipped the first value.' }],
  ];
}

/** The repository with PR #2 from its own branch `changes` (which still has the bug). */
export async function prHarness(
  options: { headFiles?: Record<string, string>; fork?: boolean; runs?: RunSeed[] } = {},
) {
  const harness = await startActionHarness({
    files: FILES,
    branches: { [HEAD]: options.headFiles ?? { 'notes.md': 'A change under review.\n' } },
    seed: {
      pulls: [
        {
          repo: FULL_NAME,
          number: PR,
          title: 'Update the notes',
          head: options.fork ? { repo: 'drive-by/Hello-World', ref: HEAD } : HEAD,
          base: 'main',
        },
      ],
      ...(options.runs ? { runs: options.runs } : {}),
    },
  });
  const headSha = (await harness.origin.branches())[HEAD]!;
  return { ...harness, headSha };
}

export function repositoryOf<
  T extends {
    repository: {
      name: string;
      full_name: string;
      default_branch: string;
      owner: { login: string };
    };
  },
>(payload: T): T {
  payload.repository.name = REPO;
  payload.repository.full_name = FULL_NAME;
  payload.repository.owner.login = OWNER;
  payload.repository.default_branch = 'main';
  return payload;
}

export function pullRequestOpened(headSha: string, headRepo = FULL_NAME) {
  const payload = repositoryOf(
    webhookExample('pull_request', (example) => example.action === 'opened'),
  );
  payload.number = PR;
  const pr = payload.pull_request;
  pr.number = PR;
  pr.head.ref = HEAD;
  pr.head.sha = headSha;
  pr.head.repo!.full_name = headRepo;
  pr.base.ref = 'main';
  pr.base.repo.full_name = FULL_NAME;
  payload.sender.login = OWNER;
  payload.sender.type = 'User';
  return payload;
}

export const ISSUE = {
  repo: FULL_NAME,
  number: 1,
  title: 'mean() is wrong',
  body: 'mean([1,2,3]) gives 1.67',
  labels: ['ci-agent'],
};

/** Issue #1 labelled `label` by `sender`. */
export function issueLabeled(label = 'ci-agent', sender = OWNER) {
  const payload = repositoryOf(webhookExample('issues', (example) => example.action === 'labeled'));
  payload.issue.number = 1;
  payload.issue.title = ISSUE.title;
  payload.issue.body = ISSUE.body;
  if (payload.label) payload.label.name = label;
  payload.sender.login = sender;
  payload.sender.type = 'User';
  return payload;
}

export function expectClean(harness: ActionHarness): void {
  expect(harness.github.violations()).toEqual([]);
}
