/**
 * Whether a rule names a tool this build has. Rules match tool names exactly and case-sensitively
 * (`bash` is not `Bash`), so a misspelt deny rule protects nothing: the policy file refuses it,
 * settings files warn, the CLI flags refuse it.
 *
 * A rule names a tool when its name is, in order:
 * 1. a glob that can match a built-in tool or an MCP tool (`*`, `mcp__*`, `Web*`);
 * 2. `mcp__<server>` or `mcp__<server>__<tool>` (the server is checked where servers are known);
 * 3. a built-in tool or one of its aliases (`Task` for `Agent`), or WebSearch; for `Agent(type)`
 *    the type must be one the Agent tool starts.
 */
import { builtinTools } from '../tools/builtin/index.js';
import { SUBAGENT_TYPES } from '../tools/builtin/agent.js';
import { WEB_SEARCH_TOOL_NAME } from '../tools/builtin/web-search.js';
import type { PermissionRule } from '../permissions/types.js';
import { compileMatcher } from '../hooks/matcher.js';
import { closestMatch } from './did-you-mean.js';

type RuleKind = 'allow' | 'deny' | 'ask';
/** A hook's `if` rule is a rule too: one that names no tool means the hook never runs. */
type RuleUse = RuleKind | 'if';

const CONSEQUENCE: Readonly<Record<RuleUse, string>> = {
  allow: 'so it allows nothing',
  deny: 'so it denies nothing',
  ask: 'so it asks about nothing',
  if: 'so the hook never runs',
};

/** Every name a rule may give a built-in tool: the tools, their aliases, and WebSearch. */
export const TOOL_NAMES: readonly string[] = [
  ...builtinTools.flatMap((tool) => [tool.name, ...tool.aliases]),
  WEB_SEARCH_TOOL_NAME,
].sort();

const AGENT_NAMES: readonly string[] = builtinTools
  .filter((tool) => tool.name === 'Agent')
  .flatMap((tool) => [tool.name, ...tool.aliases]);

/** Claude Code tools ci-agent does not have, with what covers their calls here when something does. */
const CLAUDE_CODE_ONLY: Readonly<Record<string, string>> = {
  MultiEdit: 'Edit covers its edits',
  LS: 'Read, Glob and Bash(ls:*) cover listing',
  NotebookRead: 'Read reads notebooks',
  BashOutput: 'ci-agent runs no background shells',
  KillShell: 'ci-agent runs no background shells',
  KillBash: 'ci-agent runs no background shells',
  TaskOutput: 'ci-agent runs no background tasks',
  TaskStop: 'ci-agent runs no background tasks',
  TaskCreate: 'TodoWrite keeps the task list',
  TaskGet: 'TodoWrite keeps the task list',
  TaskUpdate: 'TodoWrite keeps the task list',
  TaskList: 'TodoWrite keeps the task list',
  AskUserQuestion: 'nobody can answer in CI',
  Skill: 'ci-agent runs no skills',
  SlashCommand: 'ci-agent runs no slash commands',
  ListMcpResourcesTool: 'ci-agent reads no MCP resources',
  ReadMcpResourceTool: 'ci-agent reads no MCP resources',
};

/** Other agents' names for the same tools (matched case-insensitively), for the suggestion. */
const OTHER_NAMES: Readonly<Record<string, string>> = {
  shell: 'Bash',
  sh: 'Bash',
  terminal: 'Bash',
  run_shell_command: 'Bash',
  exec_command: 'Bash',
  read_file: 'Read',
  view: 'Read',
  write_file: 'Write',
  str_replace: 'Edit',
  fetch: 'WebFetch',
  web_fetch: 'WebFetch',
  web_search: 'WebSearch',
  google_web_search: 'WebSearch',
};

const MCP_PREFIX = 'mcp__';

/**
 * What is wrong with the tool a parsed rule names, phrased for every source (file, settings,
 * flag); undefined when it names one. The message starts with the rule, e.g.
 * `deny rule "bash(curl:*)" names no tool ci-agent has, so it denies nothing: tool names are
 * case-sensitive; did you mean "Bash(curl:*)"?`.
 */
export function ruleToolProblem(rule: PermissionRule, use: RuleUse): string | undefined {
  const name = rule.toolName;
  const dead = `${use === 'if' ? 'the "if"' : use} rule ${JSON.stringify(rule.text)}`;
  const nothing = CONSEQUENCE[use];
  if (name.includes('*')) {
    return globCanMatch(name) ? undefined : `${dead} matches no tool, ${nothing}`;
  }
  if (name.startsWith(MCP_PREFIX)) {
    if (mcpServerOf(name) !== undefined) return undefined;
    return `${dead} names no MCP server, ${nothing}: expected "mcp__<server>" or "mcp__<server>__<tool>"`;
  }
  if (TOOL_NAMES.includes(name)) return agentTypeProblem(rule, dead, nothing);
  const lacking = Object.hasOwn(CLAUDE_CODE_ONLY, name) ? CLAUDE_CODE_ONLY[name] : undefined;
  if (lacking !== undefined) {
    return `${dead} names the Claude Code tool ${name}, which ci-agent does not have, ${nothing} (${lacking}); remove it`;
  }
  return `${dead} names no tool ci-agent has, ${nothing}: ${suggestion(rule)}`;
}

/** The server an `mcp__…` tool name (or glob) names, or undefined when it names none. */
export function mcpServerOf(name: string): string | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const server = name.slice(MCP_PREFIX.length).split('__')[0] ?? '';
  return server === '' || server.includes('*') ? undefined : server;
}

function suggestion(rule: PermissionRule): string {
  return nameSuggestion(rule.toolName, (tool) =>
    rule.content === undefined ? tool : `${tool}(${rule.content})`,
  );
}

/** What `name` probably meant, shown through `show` (the whole rule, or the name alone). */
function nameSuggestion(name: string, show: (tool: string) => string): string {
  const sameLetters = TOOL_NAMES.find((tool) => tool.toLowerCase() === name.toLowerCase());
  if (sameLetters !== undefined) {
    return `tool names are case-sensitive; did you mean ${JSON.stringify(show(sameLetters))}?`;
  }
  const lower = name.toLowerCase();
  const other = Object.hasOwn(OTHER_NAMES, lower) ? OTHER_NAMES[lower] : undefined;
  const close = other ?? closestMatch(name, TOOL_NAMES);
  if (close !== undefined) return `did you mean ${JSON.stringify(show(close))}?`;
  return `expected one of ${TOOL_NAMES.join(', ')}, or mcp__<server>[__<tool>]`;
}

/**
 * Names in a tool event's hook matcher written as a list of exact names (`Edit|Write`) that name
 * no tool, so the hook never runs for them; undefined when every name can match. Claude Code
 * tools ci-agent lacks (`Edit|MultiEdit|Write`) are left alone: common, and harmless in a list.
 * Regular expressions are not judged.
 */
export function matcherToolProblem(matcher: string): string | undefined {
  const compiled = compileMatcher(matcher);
  if (compiled.kind !== 'exact') return undefined;
  const dead = [...compiled.names].filter(
    (name) =>
      !TOOL_NAMES.includes(name) &&
      !name.startsWith(MCP_PREFIX) &&
      !Object.hasOwn(CLAUDE_CODE_ONLY, name),
  );
  if (dead.length === 0) return undefined;
  const whole = dead.length === compiled.names.size;
  return dead
    .map(
      (name) =>
        `${JSON.stringify(name)} names no tool ci-agent has, so the hook never runs${whole ? '' : ' for it'}: ${nameSuggestion(name, (tool) => tool)}`,
    )
    .join('; ');
}

/** `Agent(Explore)`: the specifier is a subagent type, named exactly. */
function agentTypeProblem(rule: PermissionRule, dead: string, nothing: string): string | undefined {
  const type = rule.content;
  if (type === undefined || !AGENT_NAMES.includes(rule.toolName)) return undefined;
  const types = SUBAGENT_TYPES.map((known) => known.name);
  if (types.includes(type)) return undefined;
  const close = closestMatch(type, types);
  const hint =
    close === undefined
      ? `expected ${rule.toolName}(<type>) with a type of ${types.join(', ')}`
      : `did you mean ${JSON.stringify(`${rule.toolName}(${close})`)}?`;
  return `${dead} names no agent type, ${nothing}: ${hint}`;
}

/** A tool-name glob is alive when it can match a built-in tool or some MCP tool. */
function globCanMatch(glob: string): boolean {
  const pattern = new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[\\^$.+?()[\]{}|/-]/g, '\\$&'))
      .join('.*')}$`,
  );
  if (TOOL_NAMES.some((name) => pattern.test(name))) return true;
  const literal = glob.slice(0, glob.indexOf('*'));
  return literal.startsWith(MCP_PREFIX) || MCP_PREFIX.startsWith(literal);
}

/**
 * A rule naming an MCP server none of the known sources configures. A warning, not an error:
 * `--mcp-config` may add servers the loader never sees.
 */
export function ruleServerProblem(
  rule: PermissionRule,
  kind: RuleKind,
  servers: ReadonlySet<string>,
): string | undefined {
  const server = mcpServerOf(rule.toolName);
  if (server === undefined || servers.has(server)) return undefined;
  const close = closestMatch(server, [...servers]);
  const hint = close === undefined ? '' : `; did you mean ${JSON.stringify(`mcp__${close}`)}?`;
  return `${kind} rule ${JSON.stringify(rule.text)} names the MCP server ${JSON.stringify(server)}, which neither .mcp.json nor the policy file configures, so it matches nothing unless --mcp-config adds it${hint}`;
}
