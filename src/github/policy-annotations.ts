/**
 * The policy's warnings as annotations: each located one on its file and line (the runner shows
 * it beside the line in the pull request's diff and on the run's page), the rest on the run.
 */
import { formatIssue } from '../policy/policy-error.js';
import type { LoadedPolicy } from '../policy/types.js';
import type { AnnotationProperties } from './workflow-commands.js';

export interface Annotation {
  message: string;
  properties: AnnotationProperties;
}

const TITLE = 'ci-agent policy';

export function policyAnnotations(
  policy: Pick<LoadedPolicy, 'warnings' | 'warningIssues'>,
): Annotation[] {
  const located = new Map(policy.warningIssues.map((issue) => [formatIssue(issue), issue]));
  return policy.warnings.map((message) => {
    const issue = located.get(message);
    return {
      message,
      properties: {
        title: TITLE,
        ...(issue && { file: issue.file }),
        ...(issue?.line !== undefined && { startLine: issue.line }),
        ...(issue?.column !== undefined && { startColumn: issue.column }),
      },
    };
  });
}
