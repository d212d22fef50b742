/**
 * `npm run demo`: the action end to end on its embedded default, offline, no API key. A sample
 * repository with a failing test becomes a bare `origin` and a runner checkout; an issue labelled
 * `ci-agent` is the event; a loopback GitHub API keeps the comments and pull requests; a loopback
 * Messages API replays a recorded model session. The real action runs: it works on a branch under
 * the repository's policy, pushes, opens the pull request and posts its report comment — printed
 * here with where the artifacts are.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSystemCommand } from '../agent/system-command.js';
import { createOriginRepo, startGitHubServer } from '../../testkit/github-server/index.js';
import { runAction } from '../github/run-action.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import { recordedSession, SAMPLE_FILES, SAMPLE_ISSUE, SAMPLE_POLICY } from './sample.js';

const OWNER = 'octo-org';
const REPO = 'sample-math';
const TOKEN = 'ghs_demo_token';
const RUN_ID = 4242;

export interface DemoResult {
  conclusion: string;
  comment: string | undefined;
  pullRequest: number | undefined;
  artifactsDir: string;
  /** A copy of the sample repository (bare), which `ci-agent replay --repo` can check out. */
  repository: string;
  verified: boolean;
}

export async function runDemo(
  write: (text: string) => void = (text) => process.stdout.write(text),
): Promise<DemoResult> {
  const origin = await createOriginRepo({
    files: { ...SAMPLE_FILES, '.github/ci-agent.yml': SAMPLE_POLICY },
  });
  const github = await startGitHubServer({
    token: TOKEN,
    actor: 'github-actions[bot]',
    seed: {
      repos: [
        { owner: OWNER, name: REPO, origin: origin.bare, permissions: { maintainer: 'admin' } },
      ],
      issues: [
        {
          repo: `${OWNER}/${REPO}`,
          number: SAMPLE_ISSUE.number,
          title: SAMPLE_ISSUE.title,
          body: SAMPLE_ISSUE.body,
          labels: ['ci-agent'],
        },
      ],
    },
  });
  const model = await startReplayServer({ turns: recordedSession(origin.checkout) });
  const runnerTemp = mkdtempSync(join(tmpdir(), 'ci-agent-demo-runner-'));
  const eventPath = join(runnerTemp, 'event.json');
  writeFileSync(eventPath, JSON.stringify(issueLabeledEvent()));
  for (const file of ['output', 'summary.md']) writeFileSync(join(runnerTemp, file), '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_EVENT_NAME: 'issues',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_RUN_ID: String(RUN_ID),
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: github.url,
    GITHUB_ACTOR: 'maintainer',
    GITHUB_SHA: origin.initialSha,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_WORKSPACE: origin.checkout,
    RUNNER_TEMP: runnerTemp,
    GITHUB_OUTPUT: join(runnerTemp, 'output'),
    GITHUB_STEP_SUMMARY: join(runnerTemp, 'summary.md'),
    'INPUT_ANTHROPIC-API-KEY': 'demo-key-not-a-secret',
    'INPUT_GITHUB-TOKEN': TOKEN,
    'INPUT_UPLOAD-ARTIFACT': 'false',
    ANTHROPIC_BASE_URL: model.url,
  };
  write(
    `ci-agent demo: issue #${SAMPLE_ISSUE.number} "${SAMPLE_ISSUE.title}" labelled ci-agent in ${OWNER}/${REPO}\n` +
      `  checkout ${origin.checkout}\n  (GitHub API and model on loopback; a recorded session replays the model)\n\n`,
  );
  try {
    const outcome = await runAction(env);
    const comment = github.state.comments.find((item) =>
      item.body.includes('<!-- ci-agent:report -->'),
    );
    const pull = github.state.pulls[0];
    // The action's own report says what the model did; the demo checks the result itself.
    await origin.git(['fetch', '-q', 'origin']);
    const branch = pull ? `origin/${pull.head.ref}` : 'HEAD';
    await origin.git(['checkout', '-q', branch]);
    const tests = await runSystemCommand('npm test', {
      cwd: origin.checkout,
      env: process.env,
      timeoutMs: 10 * 60_000,
    });
    const artifactsDir = join(runnerTemp, `ci-agent-${RUN_ID}`);
    // The origin goes with the demo; a copy stays beside the artifacts for a replay.
    const repository = join(runnerTemp, `${REPO}.git`);
    await origin.git(['clone', '--quiet', '--bare', origin.bare, repository]);
    write(
      `${comment ? `The comment the action posted on issue #${SAMPLE_ISSUE.number}:\n\n${comment.body}\n` : 'No comment was posted.\n'}`,
    );
    write(
      `\nconclusion: ${outcome.conclusion} — ${outcome.headline}\n` +
        `pull request: ${pull ? `#${pull.number} ${pull.head.ref} → ${pull.base.ref}` : 'none'}\n` +
        `verification: npm test on the pushed branch exited ${tests.exitCode ?? 'without a status'}\n` +
        `artifacts (tool log, transcript, patch, report): ${artifactsDir}\n` +
        `replay it: ci-agent replay ${artifactsDir} --repo ${repository}\n`,
    );
    return {
      conclusion: outcome.conclusion,
      comment: comment?.body,
      pullRequest: pull?.number,
      artifactsDir,
      repository,
      verified: tests.exitCode === 0,
    };
  } finally {
    await Promise.all([github.close(), model.close()]);
    await origin.cleanup();
  }
}

function issueLabeledEvent() {
  return {
    action: 'labeled',
    label: { name: 'ci-agent' },
    issue: {
      number: SAMPLE_ISSUE.number,
      title: SAMPLE_ISSUE.title,
      body: SAMPLE_ISSUE.body,
      user: { login: 'reporter', type: 'User' },
      labels: [{ name: 'ci-agent' }],
    },
    repository: {
      name: REPO,
      full_name: `${OWNER}/${REPO}`,
      owner: { login: OWNER },
      default_branch: 'main',
    },
    sender: { login: 'maintainer', type: 'User' },
  };
}
