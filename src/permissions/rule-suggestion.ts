/**
 * The narrowest sensible allow rules for a call that no allow rule covers (denial-advice.ts):
 *
 *   Bash      one rule per part of the command that no allow rule covers yet: the prefix form
 *             `Bash(npm test:*)` for a program with a subcommand (`npm run lint`, `python -m
 *             pytest`), else the command exactly (`Bash(rm -rf build)`, stars escaped); a part
 *             that writes a file names its redirections (`Bash(npm test > log.txt)`). Shells,
 *             launchers (`sudo`, `env`, `xargs`) and programs whose first argument is an operand
 *             (`rm`, `cp`, `curl`) only ever get the exact form: a prefix would allow every
 *             command or file after them. A part that runs a command known only at run time has
 *             no rule, and neither has the call;
 *   Edit, Write, NotebookEdit   `Edit(<top directory>/**)` inside the project (`Edit(./README.md)` for
 *             a file at its root), `Edit(//<directory>/**)` outside it (`~/` under the home);
 *   Read, Glob, Grep            the same with `Read`, for the file's directory or the directory searched;
 *   WebFetch  `WebFetch(domain:<host>)`;
 *   others    the tool's name (`mcp__server__tool`), or `Tool(<specifier>)` where the tool has one
 *             (`Agent(Explore)`).
 * Each rule is checked against the call as it is suggested: one that would not match is not.
 */
import { posix } from 'node:path';
import { bashPartAllowed, bashRuleMatches, compileBashRule } from './bash-rules.js';
import type { CommandPart } from './bash-views.js';
import { basename, isLauncher, SHELLS } from './bash-wrappers.js';
import type { DecisionRequest } from './decide.js';
import {
  allowRulesCovering,
  bashAnalysisOf,
  bashPartsUncovered,
  parseRule,
  ruleMatches,
} from './rules.js';
import type { PermissionPolicy } from './types.js';

export type RuleSuggestion = { rules: string[] } | { why: string };

const EDIT_TOOLS = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit']);
const READ_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LS']);
/** Tools whose path is the directory searched. */
const SEARCH_TOOLS = new Set(['Glob', 'Grep', 'LS']);

export function suggestAllowRules(
  request: DecisionRequest,
  policy: PermissionPolicy,
): RuleSuggestion {
  const { toolName } = request;
  if (toolName === 'Bash') return bashRules(request, policy);
  const paths = request.request.paths ?? [];
  if ((EDIT_TOOLS.has(toolName) || READ_TOOLS.has(toolName)) && paths.length > 0) {
    return pathRules(request, policy, paths);
  }
  const content = request.request.ruleContent;
  const candidates = [
    ...(content === undefined || content.trim() === '' ? [] : [`${toolName}(${content})`]),
    toolName,
  ];
  const rule = candidates.find((text) =>
    ruleMatches(parseRule(text, 'suggestion'), request, 'allow'),
  );
  return rule === undefined ? { why: `no rule names this ${toolName} call` } : { rules: [rule] };
}

// Bash

/** Programs that take a command or a script: a prefix of them would allow any. */
const INTERPRETERS = /^(?:python|node|perl|ruby|php|deno|bun|lua|Rscript|java)[\d.]*$/;
/**
 * Programs whose first argument is an operand (a file, a host, a pattern), not a subcommand:
 * `Bash(rm build:*)` would allow removing anything after `build`.
 */
const OPERAND_FIRST = new Set([
  ...['rm', 'rmdir', 'unlink', 'mv', 'cp', 'ln', 'install', 'chmod', 'chown', 'chgrp', 'touch'],
  ...['mkdir', 'dd', 'truncate', 'shred', 'kill', 'killall', 'pkill', 'cat', 'head', 'tail'],
  ...['less', 'more', 'echo', 'printf', 'ls', 'grep', 'rg', 'egrep', 'fgrep', 'find', 'sed'],
  ...['awk', 'tee', 'wc', 'sort', 'uniq', 'cut', 'tr', 'diff', 'patch', 'tar', 'zip', 'unzip'],
  ...['gzip', 'gunzip', 'curl', 'wget', 'ssh', 'scp', 'rsync', 'open', 'cd', 'test', '[', 'eval'],
  ...['source', '.', 'exec', 'command', 'builtin', 'trap', 'alias', 'export', 'read', 'set'],
]);
const SUBCOMMAND = /^[a-z][a-z0-9-]*$/;
/** `npm run <script>`, `npx <tool>`…: the word after these names what runs. */
const RUNNERS = new Set(['run', 'run-script', 'exec', 'x', 'dlx']);
const SCRIPT = /^[A-Za-z0-9@][\w@/.:-]*$/;
const PROGRAM = /^[\w./+-]+$/;

function bashRules(request: DecisionRequest, policy: PermissionPolicy): RuleSuggestion {
  const analysis = bashAnalysisOf(request);
  if (!analysis.ok) return unparsedRule(analysis.command, analysis.reason);
  const rules: string[] = [];
  for (const part of bashPartsUncovered(policy.allow, request)) {
    if (part.opaque) {
      return {
        why: `no rule can allow \`${part.text}\`: it runs a command known only at run time (a variable, a substitution, eval, or a script read from standard input)`,
      };
    }
    if (part.unknownRedirection) {
      return {
        why: `no rule can allow \`${part.text}\`: it redirects to or from a file named only at run time, or a network device`,
      };
    }
    const rule = [prefixRule(part), exactRule(part)].find(
      (text) => text !== undefined && bashPartAllowed(compileBashRule(text), part),
    );
    if (rule === undefined) return { why: `no rule found that allows \`${part.text}\`` };
    if (!rules.includes(rule)) rules.push(rule);
  }
  return { rules: rules.map((rule) => `Bash(${rule})`) };
}

/** `npm test:*` for `npm test -- --run`, or undefined where a prefix would allow too much. */
function prefixRule(part: CommandPart): string | undefined {
  const { words, assignments = [] } = part.ruleForm;
  if (!words || part.fileWrites.length > 0 || part.findRunsOrWrites) return undefined;
  const [program, first, second] = words;
  if (program === undefined || first === undefined || !PROGRAM.test(program)) return undefined;
  const name = basename(program);
  if (SHELLS.has(name) || isLauncher(name) || OPERAND_FIRST.has(name)) return undefined;
  let prefix: string[];
  if (INTERPRETERS.test(name)) {
    if (first !== '-m' || second === undefined || !SCRIPT.test(second)) return undefined;
    prefix = [program, first, second];
  } else if (SUBCOMMAND.test(first)) {
    prefix = [program, first];
    if (RUNNERS.has(first) && second !== undefined && SCRIPT.test(second)) prefix.push(second);
  } else {
    return undefined;
  }
  return `${[...assignments, ...prefix].join(' ')}:*`;
}

/** The part exactly, its stars literal, and the files it writes spelt out as it writes them. */
function exactRule(part: CommandPart): string {
  const command = escapeStars(part.ruleForm.text);
  if (part.fileWrites.length === 0) return command;
  return `${command} ${part.fileWrites.map(redirectionText).join(' ')}`;
}

/** `1>log.txt` as a rule writes it: the target quoted when the shell would split or expand it. */
function redirectionText(write: string): string {
  const match = /^(\d*)(>>|>\||&>>|&>|<>|>&|>)([\s\S]*)$/.exec(write);
  if (!match) return write;
  const [, fd, operator, target] = match as unknown as [string, string, string, string];
  const quoted = /^[\w./@%+=,:-]+$/.test(target) ? target : `'${target.replaceAll("'", `'\\''`)}'`;
  // The descriptor an operator writes by default is left out: `> log.txt`, as people write it.
  const shownFd = (fd === '1' && operator !== '<>') || (fd === '0' && operator === '<>') ? '' : fd;
  return `${shownFd}${operator} ${escapeStars(quoted)}`;
}

function escapeStars(text: string): string {
  return text.replaceAll('*', '\\*');
}

/** A command the parser cannot read is allowed only by a rule equal to the whole of it. */
function unparsedRule(command: string, reason: string): RuleSuggestion {
  const rule = escapeStars(command.trim().replace(/[ \t]+/g, ' '));
  const why = `the command could not be parsed (${reason}), and only a rule naming the whole of it exactly could allow it`;
  if (rule.includes('\n') || rule.length > 300) {
    return { why: `${why}: write it as simpler commands (no loops or functions)` };
  }
  const analysis = { ok: false as const, command, reason };
  if (!bashRuleMatches(compileBashRule(rule), analysis, 'allow')) return { why };
  return { rules: [`Bash(${rule})`] };
}

// Paths

function pathRules(
  request: DecisionRequest,
  policy: PermissionPolicy,
  paths: readonly string[],
): RuleSuggestion {
  const tool = EDIT_TOOLS.has(request.toolName) ? 'Edit' : 'Read';
  const projectDir = request.projectDir ?? policy.workspaceRoots[0];
  if (projectDir === undefined) return { why: 'no project directory is known to anchor a rule' };
  const directory = SEARCH_TOOLS.has(request.toolName);
  const rules = [
    ...new Set(
      paths.map((path) => `${tool}(${pathPattern(path, directory, projectDir, request.homeDir)})`),
    ),
  ];
  const parsed = rules.map((text) => parseRule(text, 'suggestion'));
  if (allowRulesCovering(parsed, request).length === 0) {
    return { why: `no ${tool} rule found that covers ${paths.join(', ')}` };
  }
  return { rules };
}

/** The path's top directory in the project, else its own directory by the root or home. */
function pathPattern(
  path: string,
  directory: boolean,
  projectDir: string,
  homeDir: string | undefined,
): string {
  const inProject = posix.relative(projectDir, path);
  if (inProject === '') return './**';
  if (!inProject.startsWith('..') && !posix.isAbsolute(inProject)) {
    const segments = inProject.split('/').map(escapeGlob);
    if (segments.length === 1 && !directory) return `./${segments[0]}`;
    return `${segments[0]}/**`;
  }
  const folder = directory ? path : posix.dirname(path);
  if (homeDir !== undefined && folder !== homeDir && folder.startsWith(`${homeDir}/`)) {
    return `~/${escapeGlob(folder.slice(homeDir.length + 1))}/**`;
  }
  return folder === '/' ? `//${escapeGlob(posix.basename(path))}` : `/${escapeGlob(folder)}/**`;
}

/** A name as a literal in a gitignore-style pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}()!+@\\]/g, '\\$&');
}
