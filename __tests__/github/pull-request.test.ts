import type { Element, Root } from 'hast';
import { toText } from 'hast-util-to-text';
import rehypeRaw from 'rehype-raw';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../src/github/github-client.js';
import { openPullRequest, pullRequestText } from '../../src/github/pull-request.js';
import type { CommentCommandTask, IssueTask } from '../../src/github/task.js';
import { createOriginRepo } from '../../testkit/github-server/index.js';
import type { OriginRepo } from '../../testkit/github-server/index.js';
import { TOKEN, expectNoViolations, startFake } from '../testkit/github-server/fixture.js';
import type { Fake } from '../testkit/github-server/fixture.js';

const SOURCE = {
  serverUrl: 'https://github.com',
  owner: 'octo',
  repo: 'app',
  runId: 42,
  runUrl: 'https://github.com/octo/app/actions/runs/42',
};

/** The HTML tree GitHub's Markdown (raw HTML kept, before sanitation) makes of `markdown`. */
function render(markdown: string): Root {
  const processor = unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(rehypeRaw);
  return processor.runSync(processor.parse(markdown));
}

function elements(node: Root | Element, name: string): Element[] {
  return node.children.flatMap((child) =>
    child.type === 'element'
      ? [...(child.tagName === name ? [child] : []), ...elements(child, name)]
      : [],
  );
}

const COMMENT: CommentCommandTask = {
  kind: 'comment-command',
  instruction: 'rename `foo` to bar\n\nand ``` close the <details> too',
  commentId: 9001,
  commentAuthor: 'maintainer',
  issueNumber: 7,
  isPullRequest: false,
  subject: {
    number: 7,
    isPullRequest: false,
    content: { title: '<img src=x onerror=alert(1)>', body: '</details>', author: 'someone' },
  },
  defaultBranch: 'main',
};

describe('pullRequestText', () => {
  it('for a comment: titled after the request, naming the requester, the comment and the issue', () => {
    const { title, body } = pullRequestText(COMMENT, SOURCE, 'Renamed it.');
    expect(title).toBe('rename `foo` to bar');
    expect(body).toBe(
      [
        'Requested by @maintainer in [this comment](https://github.com/octo/app/issues/7#issuecomment-9001) on #7:',
        '',
        '````text',
        'rename `foo` to bar',
        '',
        'and ``` close the <details> too',
        '````',
        '',
        'Renamed it.',
        '',
        '---',
        'Opened by ci-agent from [this run](https://github.com/octo/app/actions/runs/42).',
      ].join('\n'),
    );
    expect(body).not.toContain('onerror');
  });

  it('for a comment: the request renders as the text it is, whatever Markdown or HTML it holds', () => {
    const tree = render(pullRequestText(COMMENT, SOURCE, 'Renamed it.').body);
    expect(elements(tree, 'details')).toEqual([]);
    expect(elements(tree, 'pre').map((pre) => toText(pre))).toEqual([`${COMMENT.instruction}\n`]);
    const [link] = elements(tree, 'a');
    expect(link?.properties.href).toBe('https://github.com/octo/app/issues/7#issuecomment-9001');
  });

  it('for a comment: a long first line is cut for the title', () => {
    const { title } = pullRequestText({ ...COMMENT, instruction: 'x'.repeat(100) }, SOURCE, '');
    expect(title).toBe(`${'x'.repeat(71)}…`);
  });

  it('for an issue: closes it', () => {
    const task: IssueTask = {
      kind: 'issue',
      issueNumber: 3,
      title: 'Crash',
      body: '',
      author: 'someone',
      branch: 'ci-agent/issue-3',
      base: 'main',
      defaultBranch: 'main',
    };
    const { title, body } = pullRequestText(task, SOURCE, 'Fixed.');
    expect(title).toBe('Fix #3: Crash');
    expect(body.startsWith('Closes #3.\n\nFixed.')).toBe(true);
  });
});

describe('openPullRequest', () => {
  let origin: OriginRepo;
  let fake: Fake | undefined;

  beforeAll(async () => {
    origin = await createOriginRepo({ files: { 'a.txt': 'one\n' } });
    await origin.git(['checkout', '-q', '-b', 'ci-agent/run-42']);
    await origin.git(['commit', '-q', '--allow-empty', '-m', 'change']);
    await origin.git(['push', '-q', 'origin', 'ci-agent/run-42']);
  });
  afterEach(async () => {
    await fake?.server.close();
    fake = undefined;
  });
  afterAll(() => origin.cleanup());

  const request = {
    owner: 'octo',
    repo: 'app',
    serverUrl: 'https://github.com',
    branch: 'ci-agent/run-42',
    base: 'main',
    title: 'A change',
    body: 'Body',
  };

  it('opens it and gives its number', async () => {
    fake = await startFake({
      seed: { repos: [{ owner: 'octo', name: 'app', origin: origin.bare }] },
    });
    const opened = await openPullRequest(createGitHubClient(TOKEN, fake.server.url), request);
    expect(opened).toEqual({
      ok: true,
      number: fake.server.state.pulls[0]!.number,
      author: 'github-actions[bot]',
    });
    expectNoViolations(fake.server);
  });

  it('reports a refusal by the repository setting with the setting and a compare link', async () => {
    fake = await startFake({
      seed: {
        repos: [
          { owner: 'octo', name: 'app', origin: origin.bare, actionsCanCreatePullRequests: false },
        ],
      },
    });
    const opened = await openPullRequest(createGitHubClient(TOKEN, fake.server.url), request);
    expect(opened).toEqual({
      ok: false,
      headline:
        'the branch `ci-agent/run-42` was pushed, but GitHub refused to open the pull request: this repository does not let GitHub Actions create pull requests; turn on "Allow GitHub Actions to create and approve pull requests" in Settings → Actions → General → Workflow permissions, or open it by hand',
      detail:
        'GitHub answered 403 "GitHub Actions is not permitted to create or approve pull requests." The repository setting "Allow GitHub Actions to create and approve pull requests" (Settings → Actions → General → Workflow permissions, https://github.com/octo/app/settings/actions) governs the job\'s GITHUB_TOKEN; in an organization\'s repository it is greyed out until the organization\'s own setting (the organization\'s Settings → Actions → General → Workflow permissions) allows it. A GitHub App token passed as github-token is not governed by it. Open the pull request by hand: https://github.com/octo/app/compare/main...ci-agent/run-42?expand=1',
      links: [
        {
          label: 'Open the pull request by hand',
          url: 'https://github.com/octo/app/compare/main...ci-agent/run-42?expand=1',
        },
        {
          label: 'the setting “Allow GitHub Actions to create and approve pull requests”',
          url: 'https://github.com/octo/app/settings/actions',
        },
      ],
    });
  });

  it('names the permission when the job’s permissions: block leaves out pull-requests: write', async () => {
    fake = await startFake({
      tokenPermissions: { contents: 'write', issues: 'write' },
      seed: { repos: [{ owner: 'octo', name: 'app', origin: origin.bare }] },
    });
    const opened = await openPullRequest(createGitHubClient(TOKEN, fake.server.url), request);
    expect(opened).toMatchObject({
      ok: false,
      headline:
        "the branch `ci-agent/run-42` was pushed, but GitHub refused to open the pull request: the token lacks the permission: add `pull-requests: write` to the job's `permissions:`; a GitHub App's token needs the app's permission of that name",
      links: [
        {
          label: 'Open the pull request by hand',
          url: 'https://github.com/octo/app/compare/main...ci-agent/run-42?expand=1',
        },
      ],
    });
    expect(fake.server.state.pulls).toHaveLength(0);
  });

  it('is not governed by the Actions setting with another app’s token', async () => {
    fake = await startFake({
      actor: 'ci-agent-app[bot]',
      seed: {
        repos: [
          { owner: 'octo', name: 'app', origin: origin.bare, actionsCanCreatePullRequests: false },
        ],
      },
    });
    const opened = await openPullRequest(createGitHubClient(TOKEN, fake.server.url), request);
    expect(opened).toMatchObject({ ok: true, author: 'ci-agent-app[bot]' });
  });

  it('escapes what a branch name may hold that a URL path may not', async () => {
    fake = await startFake({
      seed: {
        repos: [
          { owner: 'octo', name: 'app', origin: origin.bare, actionsCanCreatePullRequests: false },
        ],
      },
    });
    const opened = await openPullRequest(createGitHubClient(TOKEN, fake.server.url), {
      ...request,
      branch: 'fix/#12?100%',
    });
    expect(opened.ok === false && opened.detail).toContain(
      'https://github.com/octo/app/compare/main...fix/%2312%3F100%25?expand=1',
    );
  });

  it('reports any other failure as the pull request, not the push, failing', async () => {
    fake = await startFake({
      seed: { repos: [{ owner: 'octo', name: 'app', origin: origin.bare }] },
    });
    const opened = await openPullRequest(createGitHubClient(TOKEN, fake.server.url), {
      ...request,
      base: 'no-such-branch',
    });
    expect(opened).toEqual({
      ok: false,
      headline:
        'the branch `ci-agent/run-42` was pushed, but the pull request could not be opened (422 Validation Failed)',
      detail:
        'Open the pull request by hand: https://github.com/octo/app/compare/no-such-branch...ci-agent/run-42?expand=1',
      links: [
        {
          label: 'Open the pull request by hand',
          url: 'https://github.com/octo/app/compare/no-such-branch...ci-agent/run-42?expand=1',
        },
      ],
    });
  });
});
