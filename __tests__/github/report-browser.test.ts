/**
 * The report as a person sees it on GitHub: rendered by GitHub's parser and sanitation, styled
 * with GitHub's Markdown CSS at a comment's width, in a real headless Chromium. What is checked
 * is the page's innerText (issue 12, item 1: the worst attacks hide nothing) and the tables'
 * widths (item 7: no column is cut off).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { ReportCollector } from '../../src/github/report.js';
import { renderReport } from '../../src/github/report-markdown.js';
import { COMMENT_WIDTH, hasChromium, launchChromium } from '../helpers/chromium.js';
import type { Browser } from '../helpers/chromium.js';
import { hasCmarkGfm } from '../helpers/gfm.js';
import { WORKSPACE, scenario } from './report-fixtures.js';

// CI installs both (.ci/run); elsewhere the test says it was skipped rather than pass unseen.
const ready = (hasChromium && hasCmarkGfm) || process.env.CI === 'true';
if (!ready) console.warn('report-browser: /usr/bin/chromium or cmark-gfm is missing: skipped');

const SECTIONS = ['Diff: 1 file', 'Denied calls (1)', 'Tool log (4 calls)', 'Hook runs (1'];

describe.skipIf(!ready)('the report in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const innerText = async (markdown: string) => {
    const page = await browser.show(markdown);
    const text = await page.innerText('article');
    await page.close();
    return text;
  };

  it('shows every section after a final text that ends in an HTML comment opener', async () => {
    const { report, context } = scenario('final text', 'All done.\n<!--');
    const text = await innerText(await renderReport(report, context));
    expect(text).toMatch(/All done.\s+<!--/);
    for (const section of SECTIONS) expect(text).toContain(section);
  });

  it('shows a command holding </details> as it ran, and the sections after it', async () => {
    const command = 'printf "</details>\\n" && echo @octocat';
    const { report, context } = scenario('Bash command', command);
    const page = await browser.show(await renderReport(report, context));
    const text = await page.innerText('article');
    expect(text).toContain(command);
    for (const section of SECTIONS) expect(text).toContain(section);
    expect(await page.locator('a').count()).toBe(1); // the workflow run, nothing from the command
    await page.close();
  });

  it('keeps a path with table pipes in its own cell, the row seven cells wide', async () => {
    const { report, context } = scenario('file_path', 'src/a | b | c.ts');
    const page = await browser.show(await renderReport(report, context));
    const log = page.locator('table').filter({ hasText: 'decision' });
    const cells = await log.locator('tbody tr').first().locator('td').allInnerTexts();
    expect(cells).toHaveLength(7);
    expect(cells[2]).toBe('src/a | b | c.ts');
    await page.close();
  });

  it('fits every table in a comment’s width, long commands, paths and reasons included', async () => {
    const { report, context } = scenario('Bash command', 'npm test');
    const long: AgentEvent[] = [
      {
        type: 'tool-call-start',
        toolUseId: 'l1',
        toolName: 'Bash',
        input: {
          command:
            'npx vitest run --reporter=verbose --coverage packages/very-long-package-name/src/components/deeply/nested/Widget.test.tsx',
        },
      },
      {
        type: 'tool-call-start',
        toolUseId: 'l2',
        toolName: 'Read',
        input: {
          file_path: `${WORKSPACE}/packages/very-long-package-name/src/components/deeply/nested/Widget.tsx`,
        },
      },
      {
        type: 'permission-decision',
        toolUseId: 'l3',
        toolName: 'mcp__documentation-server__search_documentation',
        input: { query: 'how do I configure the widget factory for server side rendering' },
        decision: {
          behavior: 'deny',
          askResolved: true,
          source: 'default',
          matchedRules: [],
          reason:
            'no rule allows mcp__documentation-server__search_documentation in default mode; nobody can approve in CI and the policy resolves asks to deny',
        },
      },
    ];
    const collector = new ReportCollector();
    for (const event of long) collector.handle(event);
    report.calls.push(...collector.report.calls);
    const page = await browser.show(await renderReport(report, context));
    const widths = await page.evaluate(
      "[...document.querySelectorAll('table')].map((table) => [table.scrollWidth, table.clientWidth])",
    );
    expect((widths as number[][]).length).toBeGreaterThanOrEqual(3);
    for (const [scroll, client] of widths as number[][]) {
      expect(scroll).toBeLessThanOrEqual(client!);
      expect(client).toBeLessThanOrEqual(COMMENT_WIDTH);
    }
    await page.close();
  });
});
