// Writes the inputs and outputs tables of docs/INPUTS.md from action.yml, between the markers
// <!-- inputs:start --> … <!-- inputs:end --> and <!-- outputs:start --> … <!-- outputs:end -->,
// so that the documentation cannot drift from what the action declares:
//
//   npm run docs:inputs            rewrite docs/INPUTS.md
//   npm run docs:inputs -- --check exit 1, naming the file, when it is not what this writes
//
// __tests__/scripts/docs-inputs.test.ts fails when the committed file differs, so CI (npm test)
// catches an input added to action.yml without its row. The page goes through Prettier, with
// the repository's settings, so `prettier --check .` agrees with what is written here.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ACTION_PATH = `${ROOT}action.yml`;
export const DOC_PATH = `${ROOT}docs/INPUTS.md`;

/**
 * The document with its two tables made from `actionText` (action.yml's text). Throws, naming
 * what is wrong, when action.yml has no inputs or outputs mapping or a marker is missing.
 */
export async function renderInputsDoc(actionText, docText, docPath = DOC_PATH) {
  const action = parse(actionText);
  const inputs = entries(action, 'inputs');
  const outputs = entries(action, 'outputs');
  let text = docText;
  text = between(text, 'inputs', inputsTable(inputs), docPath);
  text = between(text, 'outputs', outputsTable(outputs), docPath);
  const options = (await prettier.resolveConfig(docPath)) ?? {};
  return prettier.format(text, { ...options, filepath: docPath });
}

function entries(action, key) {
  const section = action?.[key];
  if (section === null || typeof section !== 'object' || Array.isArray(section)) {
    throw new Error(`action.yml: "${key}" must be a mapping of names to their description`);
  }
  return Object.entries(section).map(([name, spec]) => {
    if (typeof spec?.description !== 'string' || spec.description.trim() === '') {
      throw new Error(`action.yml: ${key}.${name} has no description`);
    }
    return { name, ...spec };
  });
}

function inputsTable(inputs) {
  const rows = inputs.map(
    (input) =>
      `| \`${input.name}\` | ${input.required === true ? 'yes' : 'no'} | ${defaultCell(input.default)} | ${cell(input.description)} |`,
  );
  return ['| input | required | default | description |', '| --- | --- | --- | --- |', ...rows];
}

function outputsTable(outputs) {
  const rows = outputs.map((output) => `| \`${output.name}\` | ${cell(output.description)} |`);
  return ['| output | description |', '| --- | --- |', ...rows];
}

function defaultCell(value) {
  if (value === undefined || value === null || value === '') return '—';
  return code(String(value));
}

/**
 * A description on one line, as the plain text action.yml holds, in a table cell: `${{ … }}`
 * expressions and backticked names shown as code, every other character that Markdown or HTML
 * would read (`<prefix>`, `*`, `[bot]`) escaped.
 */
function cell(text) {
  return text
    .trim()
    .replace(/\s+/g, ' ')
    .split(/(\$\{\{[^}]*\}\}|`[^`]+`)/)
    .map((piece, index) =>
      index % 2 === 1
        ? code(piece.startsWith('`') ? piece.slice(1, -1) : piece)
        : piece.replace(/[\\*_[\]<>|~&]/g, '\\$&'),
    )
    .join('');
}

function code(text) {
  const fence = text.includes('`') ? '``' : '`';
  const padded = text.startsWith('`') || text.endsWith('`') ? ` ${text} ` : text;
  return `${fence}${padded.replaceAll('|', '\\|')}${fence}`;
}

function between(text, name, lines, docPath) {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) {
    throw new Error(`${docPath}: expected the markers ${start} and ${end}, in that order`);
  }
  return `${text.slice(0, from + start.length)}\n\n${lines.join('\n')}\n\n${text.slice(to)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const current = readFileSync(DOC_PATH, 'utf8');
  const wanted = await renderInputsDoc(readFileSync(ACTION_PATH, 'utf8'), current);
  if (check) {
    if (wanted !== current) {
      console.error(
        'docs/INPUTS.md is not what action.yml says: run "npm run docs:inputs" and commit it',
      );
      process.exit(1);
    }
    console.log('docs/INPUTS.md matches action.yml');
  } else if (wanted !== current) {
    writeFileSync(DOC_PATH, wanted);
    console.log('wrote docs/INPUTS.md from action.yml');
  } else {
    console.log('docs/INPUTS.md already matches action.yml');
  }
}
