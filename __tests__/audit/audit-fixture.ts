/**
 * A real run's tool log for the audit tests: the built CLI against the replay server, with a
 * policy that denies, hooks that block and fail, a subagent, and text that attacks whatever
 * shows it (an ANSI escape, `</script>`). stdout in stream-json is the tool log's lines
 * (src/log/stream-json.ts maps both).
 */
import type { CliRun } from '../helpers/cli-harness.js';
import { runCli } from '../helpers/cli-harness.js';

/** Text the model writes: if any view runs it, `window.__pwned` is set. */
export const SCRIPT_ATTACK =
  '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
/** Turns a terminal's text red and clears the screen when printed raw. */
export const ANSI_ATTACK = '\u001b[31mred\u001b[2J\u0007';

export const PATCH = [
  'diff --git a/a.txt b/a.txt',
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1 +1 @@',
  '-payload',
  `+${SCRIPT_ATTACK}`,
  '',
].join('\n');

const settings = {
  permissions: { deny: ['Read(./secret.env)'], allow: ['Bash(echo:*)', 'Edit'] },
  hooks: {
    PreToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'sh hooks/block-rm.sh' }] },
      { matcher: 'Edit', hooks: [{ type: 'command', command: 'sh hooks/broken.sh' }] },
    ],
  },
};

/** Runs the CLI once (with `extra` arguments, e.g. --log-file); the caller cleans up `run.workspace`. */
export async function auditedRun(extra: readonly string[] = []): Promise<CliRun> {
  return runCli(['-p', 'go', '--output-format', 'stream-json', '--verbose', ...extra], {
    files: {
      '.claude/settings.json': JSON.stringify(settings),
      'hooks/block-rm.sh':
        '#!/bin/sh\nif grep -q "rm " ; then echo "rm is forbidden here" >&2; exit 2; fi\nexit 0\n',
      'hooks/broken.sh': '#!/bin/sh\necho "{not json" \nexit 0\n',
      'a.txt': 'payload\n',
      'secret.env': 'TOKEN=x\n',
    },
    turns: (root) => [
      [
        { type: 'text', text: `Looking around. ${ANSI_ATTACK} ${SCRIPT_ATTACK}` },
        { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: `${root}/a.txt` } },
        {
          type: 'tool_use',
          id: 'toolu_02',
          name: 'Read',
          input: { file_path: `${root}/secret.env` },
        },
      ],
      [
        { type: 'tool_use', id: 'toolu_03', name: 'Bash', input: { command: 'rm a.txt' } },
        {
          type: 'tool_use',
          id: 'toolu_04',
          name: 'Bash',
          input: { command: `echo '${SCRIPT_ATTACK}' ${ANSI_ATTACK}` },
        },
      ],
      [
        {
          type: 'tool_use',
          id: 'toolu_05',
          name: 'Edit',
          input: { file_path: `${root}/a.txt`, old_string: 'payload', new_string: SCRIPT_ATTACK },
        },
      ],
      [
        {
          type: 'tool_use',
          id: 'toolu_06',
          name: 'Agent',
          input: { description: 'look', prompt: 'read a.txt', subagent_type: 'Explore' },
        },
      ],
      [{ type: 'tool_use', id: 'toolu_07', name: 'Read', input: { file_path: `${root}/a.txt` } }],
      [{ type: 'text', text: 'a.txt holds the payload.' }],
      [{ type: 'text', text: 'done' }],
    ],
  });
}
