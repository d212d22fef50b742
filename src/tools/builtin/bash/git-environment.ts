/**
 * What git sees in every Bash call, whatever the command (docs/POLICY.md, "Read-only Bash").
 * Entries given through GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n are command-line
 * configuration to git: they outrank every configuration file, and git honours the protected
 * settings (safe.bareRepository) from them, which it ignores in a repository's own config.
 *
 *   core.fsmonitor=false          a repository cannot name a program for status/diff to run;
 *   safe.bareRepository=explicit  a directory laid out as a git dir (HEAD, config, objects, refs)
 *                                 is not used as a repository when git merely finds it from the
 *                                 cwd; only `--git-dir`/GIT_DIR reach one;
 *   GIT_PAGER=cat                 no pager program from `core.pager` or `pager.<command>`.
 *
 * External diff and textconv drivers cannot be switched off this way (an empty `diff.external`
 * makes `git diff` fail); the read-only classification answers for them by auto-allowing git
 * only in the workspace's own repository (git-repository.ts).
 */
export const GIT_CONFIG_PINS: ReadonlyArray<readonly [key: string, value: string]> = [
  ['core.fsmonitor', 'false'],
  ['safe.bareRepository', 'explicit'],
];

/** `env` with the pins added after any GIT_CONFIG_* entries it already has, so that ours win. */
export function withGitPins(env: Readonly<Record<string, string>>): Record<string, string> {
  const given = env.GIT_CONFIG_COUNT ?? '';
  const start = /^\d{1,4}$/.test(given) ? Number(given) : 0;
  const pinned: Record<string, string> = { ...env, GIT_PAGER: 'cat' };
  GIT_CONFIG_PINS.forEach(([key, value], offset) => {
    pinned[`GIT_CONFIG_KEY_${start + offset}`] = key;
    pinned[`GIT_CONFIG_VALUE_${start + offset}`] = value;
  });
  pinned.GIT_CONFIG_COUNT = String(start + GIT_CONFIG_PINS.length);
  return pinned;
}
