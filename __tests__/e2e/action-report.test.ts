/**
 * The report comment the built action posts on the loopback GitHub, read as GitHub renders it
 * (issue 12, items 1 and 7): a model that ends its text with an HTML comment opener and mentions
 * someone, a refused command holding `</details>`, a mention and a URL, a test command that
 * fails first; and the comment still shows every section, the tool log says `exit 1`, paths are
 * relative to the checkout, and nothing from the run became a link or a mention.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ACTION,
  reportComments,
  runBuiltAction,
  startActionHarness,
  startModel,
} from '../helpers/action-harness.js';
import {
  filteredText,
  linkTargets,
  renderGfm,
  renderers,
  tables,
  visibleText,
} from '../helpers/gfm.js';
import { FILES, ISSUE, issueLabeled } from './trigger-fixtures.js';

const POLICY =
  'permissions:\n  allow:\n    - Bash(node check.mjs)\n  onAsk:\n    default: deny\n    tools:\n      Edit: allow\n';
const HOSTILE_COMMAND = "echo '</details> @octocat https://evil.example' | tee notes.md";

describe('the report comment (dist/index.js)', () => {
  it('keeps its structure against what the model wrote, and says what each call did', async () => {
    expect(existsSync(ACTION), 'run "npm run build" first').toBe(true);
    const harness = await startActionHarness({
      files: { ...FILES, '.github/ci-agent.yml': POLICY },
      seed: { issues: [ISSUE] },
    });
    const root = harness.origin.checkout;
    const model = await startModel({
      turns: [
        [{ type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'node check.mjs' } }],
        [
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: 'Read',
            input: { file_path: `${root}/src/stats.js` },
          },
        ],
        [{ type: 'tool_use', id: 'toolu_03', name: 'Bash', input: { command: HOSTILE_COMMAND } }],
        [
          {
            type: 'tool_use',
            id: 'toolu_04',
            name: 'Edit',
            input: {
              file_path: `${root}/src/stats.js`,
              old_string: 'let i = 1',
              new_string: 'let i = 0',
            },
          },
        ],
        [{ type: 'tool_use', id: 'toolu_05', name: 'Bash', input: { command: 'node check.mjs' } }],
        [{ type: 'text', text: 'Fixed the loop, cc @octocat.\n<!--' }],
      ],
    });
    const run = await runBuiltAction(harness, model, {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });
    expect(run.code, run.stdout).toBe(0);

    const comments = reportComments(harness.github);
    expect(comments).toHaveLength(1);
    for (const markdown of [comments[0]!.body, run.summary]) {
      const tree = renderGfm(markdown, renderers[0]);
      const text = visibleText(tree).replace(/\s+/g, ' ');
      for (const section of [
        'Fixed the loop, cc @octocat.',
        'Diff: 1 file',
        'Denied calls (1)',
        'Tool log (5 calls)',
      ])
        expect(text).toContain(section);
      expect(text.trim()).toMatch(
        /the run’s artifacts: tool-log\.jsonl, transcript\.jsonl, changes\.patch, report\.md, audit\.html · Tool log hash: sha256:[0-9a-f]{64}$/,
      );
      expect(text).toContain(HOSTILE_COMMAND);

      const log = tables(tree).find((table) => table[0]?.[0] === '#')!;
      expect(log.slice(1).map((row) => [row[1], row[2], row[3], row[6]])).toEqual([
        ['Bash', 'node check.mjs', 'allow', 'exit 1'],
        ['Read', 'src/stats.js', 'allow', 'ok'],
        ['Bash', HOSTILE_COMMAND, 'deny', 'denied'],
        ['Edit', 'src/stats.js', 'allow', 'ok'],
        ['Bash', 'node check.mjs', 'allow', 'ok'],
      ]);
      expect(log[1]?.[4]).toBe('Bash(node check.mjs) (.github/ci-agent.yml)');
      expect(markdown).not.toContain(root);

      expect(linkTargets(tree).filter((href) => href.includes('evil'))).toEqual([]);
      expect(filteredText(tree).filter((value) => /octocat|evil/.test(value))).toEqual([]);
    }
  });
});
