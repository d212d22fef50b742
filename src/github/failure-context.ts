/**
 * What failed, gathered before the agent starts, so the model begins with the evidence: the test
 * command's output on a pull request, or the failed jobs' logs of a workflow run (through the API).
 * Both are text the PR's own code printed: buildTaskPrompt quotes them as untrusted.
 */
import { runSystemCommand } from '../agent/system-command.js';
import { errorMessage } from '../util/errors.js';
import type { Octokit } from './authorization.js';

const LOG_TAIL_LINES = 150;
const FAILURE_TEXT_LIMIT = 20_000;

export interface Failure {
  source: string;
  text: string;
}

export interface TestRun {
  passed: boolean;
  exitCode: number | null;
  failure: Failure;
}

/** Runs the configured test command through the Bash tool with the system timeout. */
export async function runTestCommand(
  command: string,
  options: Parameters<typeof runSystemCommand>[1],
): Promise<TestRun> {
  const result = await runSystemCommand(command, options);
  return {
    passed: result.exitCode === 0,
    exitCode: result.exitCode,
    failure: {
      source: `output of \`${command}\` (${result.exitCode === null ? 'interrupted' : `exit code ${result.exitCode}`})`,
      text: tail(result.output),
    },
  };
}

/** The ends of the failed jobs' logs of a workflow run. */
export async function failedJobLogs(
  octokit: Octokit,
  target: { owner: string; repo: string; runId: number },
): Promise<Failure> {
  const jobs = await octokit.paginate('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', {
    owner: target.owner,
    repo: target.repo,
    run_id: target.runId,
    filter: 'latest',
    per_page: 100,
  });
  const failed = jobs.filter((job) => job.conclusion === 'failure');
  const parts: string[] = [];
  for (const job of failed) {
    try {
      const response = await octokit.request(
        'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
        {
          owner: target.owner,
          repo: target.repo,
          job_id: job.id,
        },
      );
      parts.push(
        `== job "${job.name}" (failed), last lines of its log:\n${tailLines(String(response.data))}`,
      );
    } catch (error) {
      parts.push(
        `== job "${job.name}" (failed): its log could not be fetched (${errorMessage(error)})`,
      );
    }
  }
  return {
    source: `logs of the failed jobs of workflow run ${target.runId}`,
    text: tail(parts.join('\n\n') || 'No failed job was found in the run.'),
  };
}

function tailLines(text: string): string {
  const lines = text.split('\n');
  return lines.length > LOG_TAIL_LINES ? lines.slice(-LOG_TAIL_LINES).join('\n') : text;
}

function tail(text: string): string {
  return text.length > FAILURE_TEXT_LIMIT
    ? `… (earlier output cut)\n${text.slice(-FAILURE_TEXT_LIMIT)}`
    : text;
}
