/**
 * Issue 12, item 1: nothing the model, the repository or an issue writes changes the report's
 * structure. Each hostile string is put in each place such text lands, the report is rendered by
 * a real GFM renderer (GitHub's cmark-gfm, and remark), and what a reader sees is checked: every
 * section is there, the string shows as written, nothing it wrote became a link, a mention, an
 * image or an extra table row or column.
 */
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/github/report-markdown.js';
import {
  elementsNamed,
  filteredText,
  linkTargets,
  renderGfm,
  renderers,
  tables,
  visibleText,
} from '../helpers/gfm.js';

import { HOSTILE, PLACES, RUN_URL, scenario } from './report-fixtures.js';
import type { Place } from './report-fixtures.js';

/** What a reader sees of `text`, whitespace collapsed as a browser does in running text. */
const seen = (text: string) => text.replace(/\s+/g, ' ').trim();

const cases = PLACES.flatMap((place) =>
  Object.entries(HOSTILE).map(([what, hostile]) => ({ place, what, hostile })),
);

/** The report's own tables (not one the model wrote in its text), as row lengths. */
function tableShape(tree: ReturnType<typeof renderGfm>): number[][] {
  return tables(tree)
    .filter((table) => ['file', '#', 'call', 'event'].includes(table[0]?.[0] ?? ''))
    .map((table) => table.map((row) => row.length));
}

const SECTIONS = [
  'ci-agent: the agent made changes',
  'Diff: 1 file',
  'Task list (1/2 done)',
  'Denied calls (1)',
  'Tool log (4 calls)',
  'Hook runs (1, 1 failed)',
  'the full tool log',
];

describe.each(renderers)('the rendered report (%s)', (renderer) => {
  const render = async (place: Place, text: string) => {
    const { report, context } = scenario(place, text);
    return renderGfm(await renderReport(report, context), renderer);
  };

  it.each(PLACES)(
    'of a harmless run shows each section and table (%s: plain text)',
    async (place) => {
      const tree = await render(place, 'plain words');
      const text = seen(visibleText(tree));
      expect(SECTIONS.map((section) => text.indexOf(section)).every((index) => index >= 0)).toBe(
        true,
      );
      if (place !== 'final text') expect(text).toContain('plain words');
      expect(tableShape(tree)).toHaveLength(3);
    },
  );

  it.each(cases)('$what in the $place changes nothing around it', async ({ place, hostile }) => {
    const tree = await render(place, hostile);
    const text = seen(visibleText(tree));

    // Every section is still there, in order, and the footer ends the comment.
    const sections = SECTIONS.map((section) => text.indexOf(section));
    expect(
      sections.every((index) => index >= 0),
      `sections at ${sections.join(', ')}`,
    ).toBe(true);
    expect([...sections].sort((a, b) => a - b)).toEqual(sections);
    expect(text).toMatch(/the full tool log[^·]*: the ci-agent-log artifact$/);

    // The hostile text shows as written (the final text keeps only its formatting).
    // Our own sentences (headline, warnings) show backticked names as code: only the backticks go.
    const prose = place === 'headline' || place === 'warning';
    if (place !== 'final text')
      expect(text).toContain(seen(prose ? hostile.replace(/`([^`]+)`/g, '$1') : hostile));

    // In its own cell, not only somewhere on the page (the diff shows file names too).
    const [files, log] = tables(tree).filter((table) =>
      ['file', '#'].includes(table[0]?.[0] ?? ''),
    );
    if (place === 'file name') expect(files?.[1]?.[0]).toBe(hostile);
    if (place === 'Bash command' && hostile.length <= 80 && hostile.split('\n').length <= 3)
      expect(seen(log?.[2]?.[2] ?? '')).toBe(seen(hostile));

    // Nothing it wrote is a link, an image, a mention, a reference or an autolink.
    expect(linkTargets(tree)).toEqual([RUN_URL]);
    expect(elementsNamed(tree, 'img')).toEqual([]);
    expect(
      filteredText(tree, { emoji: place !== 'final text' }).filter((value) =>
        /evil|octocat|github\/|123|smile/i.test(value),
      ),
    ).toEqual([]);

    // The report's tables have the rows and columns of a harmless run's, and no more.
    expect(tableShape(tree)).toEqual(tableShape(await render(place, 'plain words')));
    // The diff is one code block, whole.
    const blocks = elementsNamed(tree, 'pre').map((pre) =>
      visibleText({ type: 'root', children: [pre] }),
    );
    expect(blocks.some((block) => block.includes('-old\n+new'))).toBe(true);
  });

  it('keeps the model’s formatting but none of its HTML, mentions or links', async () => {
    const { report, context } = scenario(
      'final text',
      'Fixed **mean()**.\n\n- [x] `a < b`\n- see @octocat and https://evil.example\n\n# Not ours\n\n<details>\n</details>\n\nend <!--',
    );
    const tree = renderGfm(await renderReport(report, context), renderer);
    const quote = elementsNamed(tree, 'blockquote').map((node) =>
      visibleText({ type: 'root', children: [node] }),
    );
    const said = quote.find((text) => text.includes('Fixed'));
    expect(said).toBeDefined();
    expect(seen(said!)).toContain('Fixed mean().');
    expect(seen(said!)).toContain('<details> </details>');
    expect(seen(said!)).toContain('end <!--');
    expect(seen(said!)).toContain('see @octocat and https://evil.example');
    const strong = elementsNamed(tree, 'strong').map((node) =>
      visibleText({ type: 'root', children: [node] }),
    );
    expect(strong).toEqual(expect.arrayContaining(['mean()', 'Not ours']));
    expect(elementsNamed(tree, 'h1')).toEqual([]);
    expect(linkTargets(tree)).toEqual([RUN_URL]);
  });
});
