/**
 * The shapes of public hook scripts users bring along (docs/CC-COMPAT.md §5), rewritten as small scripts
 * of our own that use the same protocol tricks, without jq.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookProject } from './hook-fixture.js';
import { group, makeHookProject, on, preRequest } from './hook-fixture.js';

let project: HookProject;
beforeEach(() => {
  project = makeHookProject();
});
afterEach(() => project.cleanup());

/** Reads the payload with node (no jq) and prints one field of tool_input. */
const FIELD = (name: string) =>
  `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(String(JSON.parse(s).tool_input.${name}??"")))'`;

describe('public hook patterns', () => {
  it('blocks with a JSON text on stderr and exit 2, the JSON becoming the reason (#2, #3)', async () => {
    const script = await project.script(
      'validate-bash.sh',
      [
        '#!/bin/bash',
        `command=$(${FIELD('command')})`,
        'if [[ "$command" == *"rm -rf"* ]]; then',
        '  echo \'{"hookSpecificOutput":{"permissionDecision":"deny"},"systemMessage":"Dangerous command"}\' >&2',
        '  exit 2',
        'fi',
        'echo \'{"continue":true}\'',
      ].join('\n'),
    );
    const { hooks } = project.runner({ PreToolUse: [group(script, { matcher: 'Bash' })] });
    const blocked = await hooks.preToolUse(preRequest('Bash', { command: 'rm -rf /' }));
    expect(blocked.decision).toMatchObject({
      behavior: 'deny',
      reason:
        '{"hookSpecificOutput":{"permissionDecision":"deny"},"systemMessage":"Dangerous command"}',
    });
    const passed = await hooks.preToolUse(preRequest('Bash', { command: 'ls' }));
    expect(passed.decision).toBeUndefined();
    expect(passed.runs[0]?.error).toBeUndefined();
  });

  it('runs a python validator: bullets on stderr with exit 2, exit 1 on bad input (#1)', async () => {
    const script = await project.script(
      'validator.py',
      [
        '#!/usr/bin/env python3',
        'import json, sys',
        'try:',
        '    data = json.load(sys.stdin)',
        'except ValueError as error:',
        '    print(f"bad input: {error}", file=sys.stderr)',
        '    sys.exit(1)',
        "command = data.get('tool_input', {}).get('command', '')",
        'issues = []',
        "if command.startswith('grep '):",
        "    issues.append('Use rg instead of grep')",
        "if 'find ' in command and '-name' in command:",
        "    issues.append('Use rg --files instead of find -name')",
        'if issues:',
        "    print('\\n'.join(f'- {issue}' for issue in issues), file=sys.stderr)",
        '    sys.exit(2)',
      ].join('\n'),
    );
    const { hooks } = project.runner({ PreToolUse: [group(script, { matcher: 'Bash' })] });
    const outcome = await hooks.preToolUse(preRequest('Bash', { command: 'grep -r foo .' }));
    expect(outcome.decision).toMatchObject({
      behavior: 'deny',
      reason: '- Use rg instead of grep',
    });
    const { hooks: broken, records } = project.runner({
      PreToolUse: [group(`echo not-json | ${script}`, { matcher: 'Bash' })],
    });
    expect((await broken.preToolUse(preRequest())).decision).toBeUndefined();
    expect(records[0]?.error).toMatch(/^exited with code 1 \(bad input: /);
  });

  it('protects files named by path, through a quoted $CLAUDE_PROJECT_DIR command (#13)', async () => {
    await project.script(
      'protect-files.sh',
      [
        '#!/bin/bash',
        `file=$(${FIELD('file_path')})`,
        'for pattern in ".env" "package-lock.json" ".git/"; do',
        '  if [[ "$file" == *"$pattern"* ]]; then',
        '    echo "Blocked: $file matches protected pattern $pattern" >&2',
        '    exit 2',
        '  fi',
        'done',
        'exit 0',
      ].join('\n'),
    );
    const command = '"$CLAUDE_PROJECT_DIR"/hooks/protect-files.sh';
    const { hooks } = project.runner({ PreToolUse: [group(command, { matcher: 'Edit|Write' })] });
    const env = await hooks.preToolUse(preRequest('Write', { file_path: `${project.root}/.env` }));
    expect(env.decision?.reason).toBe(
      `Blocked: ${project.root}/.env matches protected pattern .env`,
    );
    const src = await hooks.preToolUse(
      preRequest('Edit', { file_path: `${project.root}/src/a.ts` }),
    );
    expect(src.decision).toBeUndefined();
    const bash = await hooks.preToolUse(preRequest('Bash', { command: 'cat .env' }));
    expect(bash.runs).toEqual([]);
  });

  it('runs a logger beside a blocker: deny wins and the log is still written (#14)', async () => {
    const logger = `${FIELD('command')} >> bash.log; echo >> bash.log`;
    const blocker = 'echo "no network tools" >&2; exit 2';
    const { hooks } = project.runner({
      PreToolUse: [{ matcher: 'Bash', hooks: [...group(logger).hooks, ...group(blocker).hooks] }],
    });
    const outcome = await hooks.preToolUse(preRequest('Bash', { command: 'curl example.com' }));
    expect(outcome.decision).toMatchObject({ behavior: 'deny', reason: 'no network tools' });
    expect(project.read('bash.log')).toBe('curl example.com\n');
  });

  it('blocks with a multi-line inline script that prints {"block":true} and exits 2 (#20)', async () => {
    const command = [
      '# refuse edits on the main branch',
      'branch=main',
      'if [ "$branch" = "main" ]; then',
      '  echo \'{"block": true, "message": "Cannot edit files on main"}\'',
      '  exit 2',
      'fi',
    ].join('\n');
    const { hooks } = project.runner({
      PreToolUse: [group(command, { matcher: 'Edit|MultiEdit|Write' })],
    });
    const outcome = await hooks.preToolUse(preRequest('Edit', { file_path: '/x' }));
    expect(outcome.decision).toMatchObject({
      behavior: 'deny',
      reason: 'the hook exited with code 2 and gave no reason',
    });
  });

  it('takes a matcher-less JSON deny with a systemMessage, exit 0 (#4, #17)', async () => {
    const script = await project.script(
      'safety.py',
      [
        '#!/usr/bin/env python3',
        'import json, sys',
        "command = json.load(sys.stdin)['tool_input'].get('command', '')",
        "if 'git reset --hard' in command:",
        '    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",',
        '        "permissionDecision": "deny", "permissionDecisionReason": "destructive git command"},',
        '        "systemMessage": "safety net blocked a command"}))',
      ].join('\n'),
    );
    const { hooks } = project.runner(on('PreToolUse', [`python3 ${script} || python ${script}`]));
    const outcome = await hooks.preToolUse(
      preRequest('Bash', { command: 'git reset --hard HEAD~3' }),
    );
    expect(outcome.decision).toMatchObject({ behavior: 'deny', reason: 'destructive git command' });
    expect(outcome.systemMessages).toEqual(['safety net blocked a command']);
  });

  it('takes an auto-allow for safe commands (#18)', async () => {
    const command = `case "$(${FIELD('command')})" in ls*|"git status") echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"read-only"}}';; esac`;
    const { hooks } = project.runner(on('PreToolUse', [command]));
    expect(
      (await hooks.preToolUse(preRequest('Bash', { command: 'git status' }))).decision,
    ).toMatchObject({
      behavior: 'allow',
    });
    expect(
      (await hooks.preToolUse(preRequest('Bash', { command: 'make' }))).decision,
    ).toBeUndefined();
  });

  it('treats a nonstandard {"action":"continue"} as a no-op (#19)', async () => {
    const { hooks } = project.runner(
      on('PreToolUse', ['cat > /dev/null; echo \'{"action": "continue"}\'']),
    );
    const outcome = await hooks.preToolUse(preRequest());
    expect(outcome.decision).toBeUndefined();
    expect(outcome.runs[0]?.error).toBeUndefined();
  });

  it('logs every payload relative to the cwd and blocks rm -rf (#7)', async () => {
    const script = await project.script(
      'pre_tool_use.py',
      [
        '#!/usr/bin/env python3',
        'import json, os, sys',
        'data = json.load(sys.stdin)',
        "os.makedirs('logs', exist_ok=True)",
        "with open('logs/pre_tool_use.json', 'a') as log:",
        "    log.write(json.dumps(data) + '\\n')",
        "if 'rm -rf' in data['tool_input'].get('command', ''):",
        "    print('BLOCKED: dangerous rm command', file=sys.stderr)",
        '    sys.exit(2)',
      ].join('\n'),
    );
    const { hooks } = project.runner({ PreToolUse: [group(`python3 ${script}`, { matcher: '' })] });
    const outcome = await hooks.preToolUse(preRequest('Bash', { command: 'rm -rf build' }));
    expect(outcome.decision?.reason).toBe('BLOCKED: dangerous rm command');
    expect(JSON.parse(project.read('logs/pre_tool_use.json'))).toMatchObject({
      tool_use_id: 'toolu_1',
    });
  });

  it('feeds a PostToolUse validator block back and stays quiet on {} (#9)', async () => {
    const command = `file=$(${FIELD('file_path')}); case "$file" in *.bad) echo '{"decision":"block","reason":"ruff: E501 line too long"}';; *) echo '{}';; esac`;
    const { hooks } = project.runner({ PostToolUse: [group(command, { matcher: 'Edit|Write' })] });
    const bad = await hooks.postToolUse({
      ...preRequest('Write', { file_path: 'a.bad' }),
      toolResponse: {},
    });
    expect(bad.block?.reason).toMatch(/reported a problem: ruff: E501 line too long$/);
    const good = await hooks.postToolUse({
      ...preRequest('Write', { file_path: 'a.py' }),
      toolResponse: {},
    });
    expect(good.block).toBeUndefined();
  });
});
