/**
 * The issue or pull request any event is about, judged by the payload's shape rather than the event
 * name, so that events ci-agent has no task for (pull_request_review, issues "opened", …) still give
 * a prompt run its context and its comment.
 */
import {
  issueCommentPayload,
  parsePayload,
  pullRequestPayload,
  workflowRunPayload,
} from './event-payloads.js';
import type { TaskSubject } from './task.js';
import * as z from 'zod';

export interface EventSubject {
  subject: TaskSubject;
  /** The pull request's base branch, when the subject is a pull request and the payload says. */
  baseRef: string | undefined;
}

const shape = z.looseObject({
  pull_request: z.unknown().optional(),
  issue: z.unknown().optional(),
  workflow_run: z.unknown().optional(),
});

const withPullRequest = z.looseObject({ pull_request: pullRequestPayload.shape.pull_request });
const withIssue = z.looseObject({ issue: issueCommentPayload.shape.issue });
const withWorkflowRun = z.looseObject({ workflow_run: workflowRunPayload.shape.workflow_run });

export function subjectOf(eventName: string, payload: unknown): EventSubject | undefined {
  const keys = shape.safeParse(payload);
  if (!keys.success) return undefined;
  if (keys.data.pull_request) {
    const pr = parsePayload(eventName, withPullRequest, payload).pull_request;
    return {
      subject: {
        number: pr.number,
        isPullRequest: true,
        content: { title: pr.title, body: pr.body ?? '', author: pr.user?.login ?? '' },
      },
      baseRef: pr.base.ref,
    };
  }
  if (keys.data.issue) {
    const { issue } = parsePayload(eventName, withIssue, payload);
    return {
      subject: {
        number: issue.number,
        isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null,
        content: { title: issue.title, body: issue.body ?? '', author: issue.user?.login ?? '' },
      },
      // An issue payload does not name a pull request's base branch.
      baseRef: undefined,
    };
  }
  if (keys.data.workflow_run) {
    const run = parsePayload(eventName, withWorkflowRun, payload).workflow_run;
    const pr =
      run.pull_requests.find((candidate) => candidate.head.sha === run.head_sha) ??
      run.pull_requests[0];
    if (!pr) return undefined;
    return {
      subject: { number: pr.number, isPullRequest: true, content: undefined },
      baseRef: pr.base.ref,
    };
  }
  return undefined;
}
