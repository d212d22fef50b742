/**
 * The system prompt: who the agent is, how to use its tools in CI, the environment it runs in
 * (cwd, platform, date, git state) and the project's memory files (CLAUDE.md, AGENTS.md).
 */
import { readFile } from 'node:fs/promises';
import { release } from 'node:os';
import { join } from 'node:path';
import { inheritedEnv, runProcess } from '../process/run-process.js';

export const MEMORY_FILES = ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md', 'AGENTS.md'];
const MEMORY_FILE_LIMIT = 40_000;
const GIT_STATUS_LINES = 40;

export interface EnvironmentInfo {
  cwd: string;
  platform: string;
  osVersion: string;
  date: string;
  git?: {
    branch: string;
    status: string;
    recentCommits: string;
    /** The full sha of HEAD; undefined in a repository without commits. */
    headSha?: string;
  };
}

export interface MemoryFile {
  path: string;
  content: string;
}

export interface SystemPromptOptions {
  environment: EnvironmentInfo;
  memory: MemoryFile[];
  toolNames: string[];
  append?: string;
}

export function buildSystemPrompt(options: SystemPromptOptions): string {
  const { environment } = options;
  const sections = [
    `You are ci-agent, a coding agent running non-interactively in a continuous-integration job. Nobody will answer questions during the run: make reasonable decisions, do the task completely, and finish with a short summary of what you changed and why.`,
    `# Working with tools
- Use the tools (${options.toolNames.join(', ')}) to inspect and change the repository. Read a file before you edit or overwrite it.
- File paths given to tools should be absolute.
- Calls in one message that only read (Read, Glob, Grep, read-only Bash) run in parallel; send independent reads together.
- Some calls are refused by the repository's policy. A refusal says why; do not repeat the same call, choose another way or explain what you needed.
- Keep changes minimal and focused on the task; run the project's tests when you can.`,
    `# Environment
<env>
Working directory: ${environment.cwd}
Is directory a git repo: ${environment.git ? 'Yes' : 'No'}
Platform: ${environment.platform}
OS Version: ${environment.osVersion}
Today's date: ${environment.date}
</env>`,
  ];
  if (environment.git) {
    sections.push(`# Git status at the start of the run (a snapshot; it does not update)
Current branch: ${environment.git.branch}

Status:
${environment.git.status || '(clean)'}

Recent commits:
${environment.git.recentCommits || '(none)'}`);
  }
  for (const file of options.memory) {
    sections.push(`# Project instructions from ${file.path}
Follow these instructions from the repository; they override the defaults above where they differ.

${file.content}`);
  }
  if (options.append) sections.push(options.append);
  return sections.join('\n\n');
}

export async function readMemoryFiles(projectDir: string): Promise<MemoryFile[]> {
  const found = await Promise.all(
    MEMORY_FILES.map(async (relative) => {
      try {
        const content = await readFile(join(projectDir, relative), 'utf8');
        const trimmed =
          content.length > MEMORY_FILE_LIMIT
            ? `${content.slice(0, MEMORY_FILE_LIMIT)}\n… (cut at ${MEMORY_FILE_LIMIT} characters)`
            : content;
        return { path: relative, content: trimmed };
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter(
    (file): file is MemoryFile => file !== undefined && file.content.trim() !== '',
  );
}

export async function gatherEnvironment(cwd: string, now = new Date()): Promise<EnvironmentInfo> {
  const { status, log } = await readGitState(cwd);
  const commits = (log ?? '').split('\n').filter(Boolean);
  const headSha = commits[0]?.split(' ', 1)[0];
  const [header = '', ...statusLines] = status?.split('\n').filter(Boolean) ?? [];
  const shownStatus =
    statusLines.length > GIT_STATUS_LINES
      ? [
          ...statusLines.slice(0, GIT_STATUS_LINES),
          `… and ${statusLines.length - GIT_STATUS_LINES} more`,
        ]
      : statusLines;
  return {
    cwd,
    platform: process.platform,
    osVersion: `${process.platform} ${release()}`,
    date: now.toISOString().slice(0, 10),
    git:
      status === undefined
        ? undefined
        : {
            branch: branchOf(header) ?? '(detached HEAD)',
            status: shownStatus.join('\n'),
            recentCommits: commits.map((line) => line.slice(line.indexOf(' ') + 1)).join('\n'),
            ...(headSha && { headSha }),
          },
  };
}

/**
 * The two git reads, in one process (every process started before the first request costs the
 * run's start-up): `status --short --branch`, which also says whether this is a repository (it
 * fails outside one) and names the branch in its first line, and after a NUL the `log`: `%H` (the
 * full sha) of every commit, of which the first is HEAD's, then `--oneline`'s text. The status
 * only reads: it takes no optional lock on the index (nor refreshes it).
 */
const GIT_STATE_SCRIPT = [
  'git --no-optional-locks status --short --branch || exit 1',
  "printf '\\000'",
  "exec git log -n 5 '--format=%H %h %s'",
].join('\n');

async function readGitState(cwd: string): Promise<{ status?: string; log?: string }> {
  const result = await runProcess({
    file: '/bin/sh',
    args: ['-c', GIT_STATE_SCRIPT],
    cwd,
    env: inheritedEnv(),
    timeoutMs: 5_000,
    scope: 'process-group',
  }).result;
  if (result.outcome !== 'exited') return {};
  const separator = result.stdout.text.indexOf('\0');
  // No separator: the status failed, so this is no repository. A failed log (no commits yet)
  // leaves the status.
  if (separator < 0) return {};
  const status = result.stdout.text.slice(0, separator).trim();
  return result.exitCode === 0
    ? { status, log: result.stdout.text.slice(separator + 1).trim() }
    : { status };
}

/**
 * The branch from `git status --branch`'s header: `## main...origin/main [ahead 1]`,
 * `## No commits yet on main`, or `## HEAD (no branch)` when detached (undefined).
 */
export function branchOf(header: string): string | undefined {
  const line = header.replace(/^## /, '');
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(line);
  if (unborn) return unborn[1];
  if (line.startsWith('HEAD (no branch)')) return undefined;
  return line.split('...')[0]?.split(' ')[0] || undefined;
}
