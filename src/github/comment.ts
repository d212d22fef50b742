/**
 * One comment per PR or issue, found again by the hidden marker and its author (the token's own
 * identity) and updated in place: posted at
 * the start ("working", with a link to the run) and replaced by the report at the end. A failure
 * to post never fails the run's work: it is logged and returned, and the report is still in the
 * job summary and the artifact.
 */
import { errorMessage } from '../util/errors.js';
import type { Octokit } from './authorization.js';
import { GITHUB_ACTIONS_LOGIN, permissionRefusal } from './token-refusals.js';

/**
 * Finds the comment again on the next run (one comment per PR or issue). Here rather than in
 * report-markdown.ts, which loads only when the report is written.
 */
export const REPORT_MARKER = '<!-- ci-agent:report -->';

export { GITHUB_ACTIONS_LOGIN };

export interface CommentTarget {
  owner: string;
  repo: string;
  /** The PR or issue number (PRs take issue comments). */
  issueNumber: number;
}

export type CommentOutcome =
  | {
      ok: true;
      id: number;
      url: string;
      created: boolean;
      /** Who the token wrote it as: `github-actions[bot]` for GITHUB_TOKEN. */
      author: string | undefined;
    }
  | { ok: false; error: string };

/**
 * The id of our comment on the thread, if any: the newest one that carries the marker and was
 * written by the token's own identity. Anyone can post the marker; a comment someone else wrote
 * is never ours to overwrite (they could edit the report afterwards).
 */
export async function findReportComment(
  octokit: Octokit,
  target: CommentTarget,
): Promise<number | undefined> {
  const comments = await octokit.paginate(
    'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    {
      owner: target.owner,
      repo: target.repo,
      issue_number: target.issueNumber,
      per_page: 100,
    },
  );
  const marked = comments.filter((comment) => comment.body?.includes(REPORT_MARKER));
  if (marked.length === 0) return undefined;
  const login = (await commenterLogin(octokit)).toLowerCase();
  const ours = marked.filter((comment) => comment.user?.login.toLowerCase() === login);
  return ours[ours.length - 1]?.id;
}

/**
 * Who the token comments as. A user's token can ask (GET /user); an installation token cannot
 * (403) and comments as its app's bot: GitHub Actions' for GITHUB_TOKEN. Any other app's token is
 * then taken for GitHub Actions', so its old reports are not found and a new comment is written:
 * the safe side of not knowing.
 */
async function commenterLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.request('GET /user');
    return data.login;
  } catch {
    return GITHUB_ACTIONS_LOGIN;
  }
}

/** Creates our comment, or updates it when it exists: never a second one. */
export async function upsertReportComment(
  octokit: Octokit,
  target: CommentTarget,
  body: string,
  knownId?: number,
): Promise<CommentOutcome> {
  try {
    const id = knownId ?? (await findReportComment(octokit, target));
    if (id !== undefined) {
      const { data } = await octokit.request(
        'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
        {
          owner: target.owner,
          repo: target.repo,
          comment_id: id,
          body,
        },
      );
      return {
        ok: true,
        id: Number(data.id),
        url: data.html_url,
        created: false,
        author: data.user?.login,
      };
    }
    const { data } = await octokit.request(
      'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
      {
        owner: target.owner,
        repo: target.repo,
        issue_number: target.issueNumber,
        body,
      },
    );
    // The schema allows a bigint id; issue comment ids are far below 2^53.
    return {
      ok: true,
      id: Number(data.id),
      url: data.html_url,
      created: true,
      author: data.user?.login,
    };
  } catch (error) {
    // Posting is the point, so write; `issues: write` takes an issue's and a PR's comments alike.
    const advice = permissionRefusal(error, [[{ name: 'issues', level: 'write' }]], {
      level: 'write',
    });
    return {
      ok: false,
      error: `could not post the report comment: ${errorMessage(error)}${advice ? `; ${advice}` : ''}`,
    };
  }
}

/** The comment shown while the run works. */
export function workingComment(runUrl: string | undefined): string {
  const link = runUrl ? ` Follow it in [the workflow run](${runUrl}).` : '';
  return `${REPORT_MARKER}\n\n### ⏳ ci-agent is working on this\n\nThe report replaces this comment when the run ends.${link}\n`;
}
