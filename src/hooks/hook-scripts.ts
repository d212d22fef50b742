/**
 * The scripts configured hooks run, found when the run starts and held to what they were then
 * (docs/DECISIONS.md #18: the judges are not the agent's to change).
 *
 *   1. at start, each hook command is read as a shell command with `$CLAUDE_PROJECT_DIR`, `$HOME`
 *      and `~` put in; every word of it that names an existing file (from the project directory)
 *      is a script of the hook: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`,
 *      `node scripts/check.mjs`, `python3 hooks/x.py`;
 *   2. those files become judge paths (the permission decision refuses changes to them), and their
 *      content is fingerprinted;
 *   3. before a hook runs, its words are resolved again from the hook's working directory: a
 *      script whose content changed, or a word that now names another file than at start (the
 *      agent moved the working directory next to a look-alike), makes the run fail closed; so
 *      does a script the hook runs that did not exist at start (`test -f x.mjs && node x.mjs`:
 *      the agent would write the judge), which is a judge path from the start too.
 * Not covered: what a script imports or reads (a module beside it, `package.json` for
 * `npm run`); docs/POLICY.md says so, and the action warns of each script a hook runs from the
 * project outside `.claude/` (`scriptsOutsideClaudeDir`), where that is most likely.
 * Changes by code the agent runs (a test command) are what step 3 is for; the permission
 * decision cannot see those.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { allCommands, parseCommand } from '../shell/parse-command.js';
import type { HooksConfig } from './config.js';

export interface HookScripts {
  /** Every script found, resolved through symlinks. */
  readonly paths: readonly string[];
  /** Why the command may not run now, or undefined when its scripts are as they were. */
  check(command: string, cwd: string): string | undefined;
}

interface Anchors {
  projectDir: string;
  homeDir: string;
}

export function findHookScripts(hooks: HooksConfig, anchors: Anchors): HookScripts {
  const fingerprints = new Map<string, string>();
  /** Per command: its words, parsed once, and the real path each script word named at start. */
  const commands = new Map<string, CommandScripts>();
  /** Scripts a hook runs that were not there at start: they must stay absent. */
  const absentPaths = new Set<string>();
  for (const command of hookCommands(hooks)) {
    const scripts = scriptsOf(command, anchors);
    for (const real of scripts.named.values()) fingerprints.set(real, fingerprintOf(real) ?? '');
    for (const word of scripts.absent) absentPaths.add(resolve(anchors.projectDir, word));
    commands.set(command, scripts);
  }
  return {
    paths: [...fingerprints.keys(), ...absentPaths],
    check(command, cwd) {
      const known = commands.get(command);
      for (const word of known?.words ?? scriptWords(command, anchors)) {
        const now = existingFile(resolve(cwd, word));
        const then = known?.named.get(word);
        if (then !== undefined && now !== then) {
          return `its script ${word} now names ${now ?? 'no file'} instead of ${then}, the file it named when the run started`;
        }
        if (now !== undefined && known?.absent.has(word)) {
          return `its script ${word} (${now}) did not exist when the run started`;
        }
        if (now === undefined) continue;
        const expected = fingerprints.get(now);
        if (expected && fingerprintOf(now) !== expected) {
          return `its script ${now} changed after the run started`;
        }
      }
      return undefined;
    },
  };
}

/**
 * The scripts hooks run from the project but outside its `.claude/` folder, each with its
 * command. `.claude/` is a judge whole (read-only to the agent, and on a pull request taken from
 * the base branch whole); a script elsewhere is held to its own content only: what it imports
 * or reads beside it stays the agent's to change, and on a pull request it is the pull request's
 * version. Scripts outside the project (the runner's tools, the home folder) are not listed.
 */
export function scriptsOutsideClaudeDir(
  hooks: HooksConfig,
  anchors: Anchors,
): { command: string; script: string }[] {
  const found: { command: string; script: string }[] = [];
  for (const command of hookCommands(hooks)) {
    const { named, absent } = scriptsOf(command, anchors);
    for (const word of [...named.keys(), ...absent]) {
      const script = relative(anchors.projectDir, resolve(anchors.projectDir, word));
      const inProject =
        script !== '' && script !== '..' && !script.startsWith('../') && !isAbsolute(script);
      if (inProject && script !== '.claude' && !script.startsWith('.claude/')) {
        found.push({ command, script });
      }
    }
  }
  return found;
}

/**
 * What the step (the action) or stderr (the CLI in CI) says of one such script. `pullRequests`:
 * the action, which on a pull request runs the pull request's version of it.
 */
export function outsideClaudeDirWarning(
  { command, script }: { command: string; script: string },
  pullRequests: boolean,
): string {
  const pullRequest = pullRequests
    ? ", and on a pull request it runs the pull request's version"
    : '';
  return `the hook command ${JSON.stringify(command)} runs ${script}, outside .claude/: ci-agent holds that file to its content at the start, but not what it imports or reads${pullRequest}. Keep hook scripts, and what they use, under .claude/ (docs/POLICY.md)`;
}

interface CommandScripts {
  words: string[];
  /** Each word naming an existing file (from the project directory), with its real path. */
  named: Map<string, string>;
  /** The words in a script's place that name nothing yet. */
  absent: Set<string>;
}

/** A hook command's scripts as the run finds them at start (findHookScripts, step 1). */
function scriptsOf(command: string, anchors: Anchors): CommandScripts {
  const argvs = commandArgvs(command, anchors);
  const words = argvs.flat();
  const named = new Map<string, string>();
  for (const word of words) {
    const real = existingFile(resolve(anchors.projectDir, word));
    if (real !== undefined) named.set(word, real);
  }
  const absent = new Set(
    argvs
      .flatMap(scriptOperand)
      .filter((word) => !named.has(word) && !existsSync(resolve(anchors.projectDir, word))),
  );
  return { words, named, absent };
}

function hookCommands(hooks: HooksConfig): string[] {
  const commands = Object.values(hooks).flatMap((groups) =>
    (groups ?? []).flatMap((group) => group.hooks.map((handler) => handler.command)),
  );
  return [...new Set(commands)];
}

/** The words of a command, with the variables a hook command may use to name its script put in. */
function scriptWords(command: string, anchors: Anchors): string[] {
  return commandArgvs(command, anchors).flat();
}

/** Each simple command's words, with `$CLAUDE_PROJECT_DIR`, `$HOME` and `~/` put in. */
function commandArgvs(command: string, { projectDir, homeDir }: Anchors): string[][] {
  const expanded = command
    .replaceAll(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, projectDir)
    .replaceAll(/\$\{HOME\}|\$HOME\b/g, homeDir)
    .replaceAll(/(^|[\s'"=])~\//g, `$1${homeDir}/`);
  const parsed = parseCommand(expanded);
  if (!parsed.ok) return [];
  return allCommands(parsed.commands).map((simple) => simple.argv);
}

/** Programs that run the script named by their first operand. */
const INTERPRETERS = new Set([
  'bash',
  'sh',
  'dash',
  'zsh',
  'node',
  'deno',
  'bun',
  'tsx',
  'python',
  'python3',
  'ruby',
  'perl',
  'php',
]);

/**
 * The word of a simple command in a script's place: the command when named by a path, or the
 * first operand of an interpreter (`node scripts/x.mjs`, `python3 -u hooks/y.py`) when a path.
 */
function scriptOperand([program = '', ...rest]: readonly string[]): string[] {
  const operand = INTERPRETERS.has(program.split('/').pop() ?? '')
    ? rest.find((word) => !word.startsWith('-'))
    : program;
  return operand !== undefined && operand.includes('/') ? [operand] : [];
}

function existingFile(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Larger files (interpreters named by path) are not read at each run: they are held to their
 * identity and times instead (inode, size, modification and change time; a rewrite moves the
 * change time, which no program can set back).
 */
const MAX_FINGERPRINTED_BYTES = 4 * 1024 * 1024;

function fingerprintOf(path: string): string | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    if (stats.size > MAX_FINGERPRINTED_BYTES) {
      return `stat:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    }
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}
