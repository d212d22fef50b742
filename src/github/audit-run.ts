/**
 * The action's audit mode (`audit-run-id`), in order:
 *   1. the finished run's artifact (`artifact-name`) found and downloaded by run id with
 *      @actions/artifact (findBy: the token, the run, this repository: the REST API, which needs
 *      `actions: read`), into a fresh directory;
 *   2. read and audited as `ci-agent audit` does (audit/), the log required to be of that run
 *      (the action's session id is the run id: another run's artifact is "replaced");
 *   3. the result in the job summary, the `audit-result` and `log-hash` outputs, and the
 *      conclusion: a log that fails verification, or an artifact that cannot be had, fails the
 *      step; findings (an incomplete log) are warnings.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditSource } from '../audit/audit.js';
import type { AuditResult } from '../audit/audit.js';
import { AuditSourceError, readAuditSource } from '../audit/source.js';
import { errorMessage } from '../util/errors.js';
import type { GitHubEvent } from './context.js';
import type { ActionInputs } from './inputs.js';
import { codeSpan, escapeText } from './markdown-escape.js';
import { withRunnerEnv } from './runner-env.js';
import type { WorkflowCommands } from './workflow-commands.js';

const RESULT_WORDS = { 0: 'verified', 1: 'incomplete', 2: 'failed' } as const;

export interface AuditRunOutcome {
  conclusion: 'success' | 'failed';
  headline: string;
}

export async function auditRun(
  runId: number,
  inputs: Readonly<ActionInputs>,
  event: GitHubEvent,
  env: NodeJS.ProcessEnv,
  commands: WorkflowCommands,
): Promise<AuditRunOutcome> {
  const what = `the ${inputs.artifactName} artifact of run ${runId}`;
  let result: AuditResult;
  try {
    const dir = await download(runId, inputs, event, env);
    result = auditSource(readAuditSource(dir), { expectSessionId: String(runId) });
  } catch (error) {
    const reason =
      error instanceof AuditSourceError
        ? error.message
        : `it could not be downloaded: ${errorMessage(error)}`;
    const headline = `the audit of ${what} failed: ${reason}`;
    await summary(commands, `### ❌ ci-agent audit\n\n${escapeText(headline)}\n`);
    commands.setOutput('audit-result', 'failed');
    commands.setOutput('log-hash', '');
    commands.setOutput('conclusion', 'failed');
    return { conclusion: 'failed', headline };
  }
  const word = RESULT_WORDS[result.exitCode];
  const hash = result.verdict.failure ? undefined : result.verdict.finalHash;
  await summary(commands, auditMarkdown(what, result));
  for (const finding of result.findings) {
    if (finding.severity === 'finding') commands.warning(`ci-agent audit: ${finding.message}`);
    if (finding.severity === 'failure') commands.error(`ci-agent audit: ${finding.message}`);
  }
  commands.setOutput('audit-result', word);
  commands.setOutput('log-hash', hash ?? '');
  const failed = result.exitCode === 2;
  commands.setOutput('conclusion', failed ? 'failed' : 'success');
  const first = result.findings.find((finding) => finding.severity !== 'note');
  return {
    conclusion: failed ? 'failed' : 'success',
    headline: `the audit of run ${runId}'s ${inputs.artifactName}: ${word}${first ? ` (${first.code}: ${first.message})` : ''}`,
  };
}

async function download(
  runId: number,
  inputs: Readonly<ActionInputs>,
  event: GitHubEvent,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  // Imported on demand, as for the upload (artifact-upload.ts).
  const { DefaultArtifactClient } = await import('@actions/artifact');
  const client = new DefaultArtifactClient();
  const findBy = {
    token: inputs.githubToken,
    workflowRunId: runId,
    repositoryOwner: event.owner,
    repositoryName: event.repo,
  };
  const dir = mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), `ci-agent-audit-${runId}-`));
  // The client reads GITHUB_API_URL from process.env when it builds its Octokit.
  const { artifact } = await withRunnerEnv(env, () =>
    client.getArtifact(inputs.artifactName, { findBy }),
  );
  await withRunnerEnv(env, () => client.downloadArtifact(artifact.id, { path: dir, findBy }));
  return dir;
}

/** The audit for the job summary; everything from the artifact is escaped or in code spans. */
export function auditMarkdown(what: string, result: AuditResult): string {
  const icon = ['✅', '⚠️', '❌'][result.exitCode];
  const { verdict } = result;
  const rows = [
    [
      'Chain',
      verdict.failure
        ? `broken at line ${verdict.failure.line} (${verdict.failure.kind})`
        : `${verdict.records.length} lines, ${verdict.closed ? 'closed' : 'not closed'}`,
    ],
    ['Final hash', verdict.finalHash && !verdict.failure ? codeSpan(verdict.finalHash) : '—'],
    [
      'Checked against',
      result.checkedAgainst
        ? `${codeSpan(result.checkedAgainst.hash)} (${result.checkedAgainst.from === 'report' ? "the run's report" : 'the expected hash'})`
        : '—',
    ],
    ['Attestation', escapeText(result.attestation.status)],
  ];
  const findings = result.findings.map(
    (finding) =>
      `- **${finding.severity}** ${codeSpan(finding.code)}${finding.line === undefined ? '' : ` (line ${finding.line})`}: ${escapeText(finding.message)}`,
  );
  return [
    `### ${icon} ci-agent audit: ${RESULT_WORDS[result.exitCode]}`,
    '',
    `${escapeText(what)}, ${result.source.files.length} file(s).`,
    '',
    '| | |',
    '| --- | --- |',
    ...rows.map(([name, value]) => `| ${name} | ${value} |`),
    '',
    ...findings,
    '',
  ].join('\n');
}

async function summary(commands: WorkflowCommands, markdown: string): Promise<void> {
  try {
    await commands.appendSummary(markdown);
  } catch (error) {
    commands.warning(`the job summary could not be written: ${errorMessage(error)}`);
  }
}
