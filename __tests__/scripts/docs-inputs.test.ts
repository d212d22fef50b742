/**
 * docs/INPUTS.md's tables are what scripts/docs-inputs.mjs makes from action.yml (issue 15,
 * part 5): this fails when an input or output is added, changed or removed in action.yml and
 * `npm run docs:inputs` was not run. The script itself is checked too: a new input makes a new
 * row, and a document without its markers or an input without a description is an error that
 * says so.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ACTION_PATH, DOC_PATH, renderInputsDoc } from '../../scripts/docs-inputs.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const action = readFileSync(ACTION_PATH, 'utf8');
const doc = readFileSync(DOC_PATH, 'utf8');

describe('docs/INPUTS.md', () => {
  it('is what `npm run docs:inputs` makes from action.yml', async () => {
    expect(doc, 'run "npm run docs:inputs" and commit docs/INPUTS.md').toBe(
      await renderInputsDoc(action, doc),
    );
  });

  it('has a row for every input and output action.yml declares', () => {
    const declared = parse(action) as { inputs: object; outputs: object };
    for (const name of [...Object.keys(declared.inputs), ...Object.keys(declared.outputs)]) {
      expect(doc).toContain(`| \`${name}\``);
    }
  });

  it('is linked from the README', () => {
    expect(readFileSync(`${ROOT}README.md`, 'utf8')).toContain('](docs/INPUTS.md)');
  });

  it('passes `npm run docs:inputs -- --check`', async () => {
    const run = await execa('npm', ['run', '--silent', 'docs:inputs', '--', '--check'], {
      cwd: ROOT,
      reject: false,
    });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
  });
});

describe('renderInputsDoc', () => {
  it('adds a row for an input added to action.yml, so a stale page fails the test above', async () => {
    const added = action.replace(
      /^inputs:\n/m,
      'inputs:\n  new-input:\n    description: Something <new> | with *marks*.\n    default: x\n',
    );
    const made = await renderInputsDoc(added, doc);
    expect(made).not.toBe(doc);
    expect(made).toMatch(
      /\| `new-input` +\| no +\| `x` +\| Something \\<new\\> \\\| with \\\*marks\\\*\. +\|/,
    );
  });

  it('says which markers are missing', async () => {
    await expect(renderInputsDoc(action, '# no markers\n', 'docs/X.md')).rejects.toThrow(
      'docs/X.md: expected the markers <!-- inputs:start --> and <!-- inputs:end -->, in that order',
    );
  });

  it('refuses an input without a description', async () => {
    const bare = action.replace(/^inputs:\n/m, 'inputs:\n  bare: {}\n');
    await expect(renderInputsDoc(bare, doc)).rejects.toThrow(
      'action.yml: inputs.bare has no description',
    );
  });
});
