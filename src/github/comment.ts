/**
 * One comment per PR or issue, found again by the hidden marker and updated in place: posted at
 * the start ("working", with a link to the run) and replaced by the report at the end. A failure
 * to post never fails the run's work: it is logged and returned, and the report is still in the
 * job summary and the artifact.
 */
import { errorMessage } from '../util/errors.js';
import type { Octokit } from './authorization.js';
import { REPORT_MARKER } from './report-markdown.js';

export interface CommentTarget {
  owner: string;
  repo: string;
  /** The PR or issue number (PRs take issue comments). */
  issueNumber: number;
}

export type CommentOutcome =
  { ok: true; id: number; url: string; created: boolean } | { ok: false; error: string };

/** The id of our comment on the thread, if any (the newest one carrying the marker). */
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
  const ours = comments.filter((comment) => comment.body?.includes(REPORT_MARKER));
  return ours[ours.length - 1]?.id;
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
      return { ok: true, id: Number(data.id), url: data.html_url, created: false };
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
    return { ok: true, id: Number(data.id), url: data.html_url, created: true };
  } catch (error) {
    return { ok: false, error: `could not post the report comment: ${errorMessage(error)}` };
  }
}

/** The comment shown while the run works. */
export function workingComment(runUrl: string | undefined): string {
  const link = runUrl ? ` Follow it in [the workflow run](${runUrl}).` : '';
  return `${REPORT_MARKER}\n\n### ⏳ ci-agent is working on this\n\nThe report replaces this comment when the run ends.${link}\n`;
}
