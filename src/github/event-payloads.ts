/**
 * The parts of webhook payloads ci-agent reads, as zod schemas. Objects are loose: GitHub adds
 * fields all the time and we read only these. A payload that lacks one of them is a runner or
 * workflow problem, reported as an EventPayloadError naming the event and the field.
 */
import * as z from 'zod';

const user = z.looseObject({ login: z.string(), type: z.string().optional() });

const repository = z.looseObject({
  full_name: z.string(),
  default_branch: z.string(),
});

const issue = z.looseObject({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullish(),
  user: user.nullish(),
  /** Present (an object of URLs) when the issue is a pull request. */
  pull_request: z.unknown().optional(),
});

export const issuesPayload = z.looseObject({
  action: z.string(),
  label: z.looseObject({ name: z.string() }).optional(),
  issue,
  repository,
});

const branch = z.looseObject({
  ref: z.string(),
  sha: z.string(),
  /** Null when a fork's repository has been deleted. */
  repo: z.looseObject({ full_name: z.string() }).nullable(),
});

export const pullRequestPayload = z.looseObject({
  action: z.string(),
  pull_request: z.looseObject({
    number: z.number().int().positive(),
    title: z.string(),
    body: z.string().nullish(),
    user: user.nullish(),
    head: branch,
    base: branch,
  }),
  repository,
});

const runPullRequest = z.looseObject({
  number: z.number().int().positive(),
  head: z.looseObject({
    ref: z.string(),
    sha: z.string(),
    repo: z.looseObject({ id: z.number() }),
  }),
  base: z.looseObject({
    ref: z.string(),
    sha: z.string(),
    repo: z.looseObject({ id: z.number() }),
  }),
});

export const workflowRunPayload = z.looseObject({
  action: z.string(),
  workflow_run: z.looseObject({
    id: z.number().int().positive(),
    name: z.string().nullish(),
    run_attempt: z.number().int().positive().optional(),
    html_url: z.string(),
    conclusion: z.string().nullable(),
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    head_repository: z.looseObject({ full_name: z.string() }).nullish(),
    head_commit: z.looseObject({ message: z.string() }).nullish(),
    repository: z.looseObject({ full_name: z.string() }),
    pull_requests: z.array(runPullRequest),
  }),
  workflow: z.looseObject({ name: z.string() }).nullish(),
  repository,
});

export const issueCommentPayload = z.looseObject({
  action: z.string(),
  issue,
  comment: z.looseObject({ id: z.number().int().positive(), body: z.string(), user }),
  repository,
});

/** What every payload may carry: who sent it, and the repository (absent on some events). */
export const commonPayload = z.looseObject({
  sender: user.optional(),
  repository: z.looseObject({ default_branch: z.string().optional() }).optional(),
});

export class EventPayloadError extends Error {
  override readonly name = 'EventPayloadError';
}

/** Parses `payload` or throws one EventPayloadError naming the event, the field and the problem. */
export function parsePayload<T extends z.ZodType>(
  eventName: string,
  schema: T,
  payload: unknown,
): z.output<T> {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(the payload)'}: ${issue.message}`,
  );
  throw new EventPayloadError(
    `the ${eventName} event payload is not what GitHub sends: ${problems.join('; ')}`,
  );
}
