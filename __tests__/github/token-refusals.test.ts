import { describe, expect, it } from 'vitest';
import {
  isWorkflowToken,
  missingPermissions,
  parseAccepted,
  permissionAdvice,
  permissionRefusal,
  pushRefusal,
  workflowTokenNote,
} from '../../src/github/token-refusals.js';

/** The shape of Octokit's RequestError, as GitHub's answer fills it. */
function refused(status: number, message: string, accepted?: string) {
  return Object.assign(new Error(`${message} - https://docs.github.com/rest`), {
    status,
    response: {
      data: { message, documentation_url: 'https://docs.github.com/rest', status: String(status) },
      headers: accepted === undefined ? {} : { 'x-accepted-github-permissions': accepted },
    },
  });
}

const ISSUES_WRITE = [[{ name: 'issues', level: 'write' }]];

describe('parseAccepted', () => {
  it('reads the sets of GitHub’s header in the names of a permissions: block', () => {
    expect(parseAccepted('issues=write; pull_requests=write')).toEqual([
      [{ name: 'issues', level: 'write' }],
      [{ name: 'pull-requests', level: 'write' }],
    ]);
    expect(parseAccepted('contents=read,pull_requests=write')).toEqual([
      [
        { name: 'contents', level: 'read' },
        { name: 'pull-requests', level: 'write' },
      ],
    ]);
  });

  it('leaves out what is not name=level', () => {
    expect(parseAccepted('; nonsense ;issues=write')).toEqual([
      [{ name: 'issues', level: 'write' }],
    ]);
    expect(parseAccepted('')).toEqual([]);
  });
});

describe('missingPermissions', () => {
  it('takes the header’s sets for GitHub’s 403 "Resource not accessible by integration"', () => {
    const error = refused(403, 'Resource not accessible by integration', 'actions=read');
    expect(missingPermissions(error, ISSUES_WRITE)).toEqual([[{ name: 'actions', level: 'read' }]]);
  });

  it('falls back when GitHub sent no header', () => {
    const error = refused(403, 'Resource not accessible by integration');
    expect(missingPermissions(error, ISSUES_WRITE)).toEqual(ISSUES_WRITE);
  });

  it.each([
    [
      'another 403',
      refused(403, 'GitHub Actions is not permitted to create or approve pull requests.'),
    ],
    ['a 404', refused(404, 'Not Found', 'issues=write')],
    ['a 422 with the words in it', refused(422, 'Resource not accessible by integration')],
    ['no request error', new Error('Resource not accessible by integration')],
    ['nothing', undefined],
  ])('is undefined for %s', (_label, error) => {
    expect(missingPermissions(error, ISSUES_WRITE)).toBeUndefined();
  });
});

describe('permissionAdvice', () => {
  it('names the entry to add and the alternatives GitHub accepts', () => {
    expect(
      permissionAdvice([
        [{ name: 'issues', level: 'write' }],
        [{ name: 'pull-requests', level: 'write' }],
      ]),
    ).toBe(
      "the token lacks the permission: add `issues: write` to the job's `permissions:` (or `pull-requests: write`); a GitHub App's token needs the app's permission of that name",
    );
  });

  it('raises what GitHub named to write when the caller was after a write', () => {
    const error = refused(
      403,
      'Resource not accessible by integration',
      'issues=read; pull_requests=read',
    );
    expect(permissionRefusal(error, [], { level: 'write' })).toContain(
      "add `issues: write` to the job's `permissions:` (or `pull-requests: write`)",
    );
  });

  it('joins the entries of one set with "and"', () => {
    expect(
      permissionRefusal(
        refused(403, 'Resource not accessible by integration', 'contents=read,pull_requests=write'),
        [],
      ),
    ).toContain('add `contents: read` and `pull-requests: write` to');
  });
});

describe('pushRefusal', () => {
  it('names contents: write for GitHub’s refusal of the token, as git prints it', () => {
    const stderr =
      "git push origin HEAD:refs/heads/ci-agent/issue-1 failed (exit 128): remote: Permission to octo/app.git denied to github-actions[bot]. | fatal: unable to access 'https://github.com/octo/app/': The requested URL returned error: 403";
    expect(pushRefusal(stderr)).toMatch(/^GitHub refused the push \(403\).*add `contents: write`/);
  });

  it('says that no GITHUB_TOKEN may push a workflow change', () => {
    const stderr =
      ' ! [remote rejected] HEAD -> ci-agent/issue-1 (refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission)';
    expect(pushRefusal(stderr)).toMatch(
      /GitHub refuses workflow changes \(\.github\/workflows\/ci\.yml\).*GitHub App token/,
    );
  });

  it('is undefined for any other failure of a push', () => {
    expect(
      pushRefusal('! [remote rejected] HEAD -> main (pre-receive hook declined)'),
    ).toBeUndefined();
    expect(
      pushRefusal("fatal: unable to access 'https://github.com/o/r/': Could not resolve host"),
    ).toBeUndefined();
  });
});

describe('isWorkflowToken', () => {
  it('is the login GITHUB_TOKEN writes as, and nothing else', () => {
    expect(isWorkflowToken('github-actions[bot]')).toBe(true);
    expect(isWorkflowToken('GitHub-Actions[bot]')).toBe(true);
    expect(isWorkflowToken('ci-agent-app[bot]')).toBe(false);
    expect(isWorkflowToken('octocat')).toBe(false);
    expect(isWorkflowToken(undefined)).toBe(false);
  });
});

describe('workflowTokenNote', () => {
  it('says CI will not run and how to have it run', () => {
    const note = workflowTokenNote('ci-agent/issue-1', true);
    expect(note).toContain('`ci-agent/issue-1` and its pull request were made with');
    expect(note).toContain('CI will not run on this commit');
    expect(note).toContain('actions/create-github-app-token');
    expect(workflowTokenNote('changes', false)).toContain('was made with the job');
  });
});
