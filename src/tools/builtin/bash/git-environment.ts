/**
 * What git sees in Bash calls, whatever the command (docs/POLICY.md, "Read-only Bash"). Entries
 * given through GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n are command-line
 * configuration to git: they outrank every configuration file, and git honours the protected
 * settings (safe.bareRepository) from them, which it ignores in a repository's own config.
 *
 *   core.fsmonitor=false          every call: a repository cannot name a program for status or
 *                                 diff to run;
 *   GIT_PAGER=cat                 every call: no pager program from `core.pager`/`pager.<cmd>`;
 *   GIT_OPTIONAL_LOCKS=0          every call: a read-only `git status` does not rewrite the index
 *                                 (or race a git command of the action for its lock);
 *   safe.bareRepository=explicit  every call that may run git itself (mayRunGit): a directory
 *                                 laid out as a git dir (HEAD, config, objects, refs) is not used
 *                                 as a repository when git merely finds it from the cwd;
 *                                 `--git-dir` still works.
 *
 * The bare-repository pin is left out of commands that do not name git, because test suites run
 * git inside bare fixtures by cwd (`git -C origin.git config …`), and a command that runs a test
 * suite runs arbitrary code anyway. External diff and textconv drivers cannot be switched off
 * this way (an empty `diff.external` makes `git diff` fail); the read-only classification answers
 * for them by auto-allowing git only in the workspace's own repository (git-repository.ts).
 */
import { allCommands, parseCommand } from '../../../shell/parse-command.js';

const EVERY_CALL: ReadonlyArray<readonly [key: string, value: string]> = [
  ['core.fsmonitor', 'false'],
];
const NAMING_GIT: ReadonlyArray<readonly [key: string, value: string]> = [
  ['safe.bareRepository', 'explicit'],
];

/** `env` with the pins added after any GIT_CONFIG_* entries it already has, so that ours win. */
export function withGitPins(
  env: Readonly<Record<string, string>>,
  command: string,
): Record<string, string> {
  const pins = mayRunGit(command) ? [...EVERY_CALL, ...NAMING_GIT] : EVERY_CALL;
  const given = env.GIT_CONFIG_COUNT ?? '';
  const start = /^\d{1,4}$/.test(given) ? Number(given) : 0;
  const pinned: Record<string, string> = { ...env, GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0' };
  pins.forEach(([key, value], offset) => {
    pinned[`GIT_CONFIG_KEY_${start + offset}`] = key;
    pinned[`GIT_CONFIG_VALUE_${start + offset}`] = value;
  });
  pinned.GIT_CONFIG_COUNT = String(start + pins.length);
  return pinned;
}

/**
 * False only when the command parses, every program it names is literal, and no word of it,
 * nested scripts included, mentions git (`env git`, `g''it`, `/usr/bin/git` all do).
 */
export function mayRunGit(command: string): boolean {
  const parsed = parseCommand(command);
  if (!parsed.ok) return true;
  return allCommands(parsed.commands).some(
    (simple) =>
      (simple.words[0] !== undefined && simple.words[0].expansions.length > 0) ||
      simple.words.some((word) => /git/i.test(word.value)),
  );
}
