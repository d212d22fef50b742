/**
 * The audit page of a real run (the built CLI, audit-fixture.ts) as a reviewer sees it: opened
 * from a file in a real headless Chromium (/usr/bin/chromium through playwright-core), asserting
 * on what the page shows and on what it must never do (run the log's scripts, make a request).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderAuditHtml } from '../../src/audit/html.js';
import { judgeRun } from '../../src/audit/judge.js';
import { runDemo } from '../../src/demo/main.js';
import { readAuditRun } from '../../src/audit/records.js';
import type { AuditRun } from '../../src/audit/records.js';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { PATCH, SCRIPT_ATTACK, auditedRun } from './audit-fixture.js';

// CI installs Chromium (.ci/run); elsewhere the test says it was skipped rather than pass unseen.
const ready = hasChromium || process.env.CI === 'true';
if (!ready) console.warn('html-browser: /usr/bin/chromium is missing: skipped');

let cli: CliRun;
let run: AuditRun;
let browser: Browser;
let dir: string;

describe.skipIf(!ready)('the audit page in Chromium', () => {
  beforeAll(async () => {
    cli = await auditedRun();
    run = readAuditRun(cli.lines);
    dir = mkdtempSync(join(tmpdir(), 'ci-agent-audit-html-'));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    cli?.workspace.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The page opened from a file, as a reviewer opens the artifact's; every request recorded. */
  async function open(
    html: string,
    name = 'audit.html',
  ): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const path = join(dir, name);
    writeFileSync(path, html);
    const page = await browser.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(path).href);
    return { page, requests, errors };
  }

  const visibleCalls = (page: Page) =>
    page.locator('#calls > li:visible summary strong').allInnerTexts();

  it('shows the outcome, one timeline entry per call, and every call', async () => {
    const { page, requests, errors } = await open(renderAuditHtml({ run, patch: PATCH }));
    expect(await page.locator('#outcome-text').innerText()).toMatch(
      /^success, 5 turns, .*7 calls, 2 denied/,
    );
    expect(await page.locator('#timeline li').count()).toBe(7);
    expect(await visibleCalls(page)).toEqual([
      '#1 Read',
      '#2 Read',
      '#3 Bash',
      '#4 Bash',
      '#5 Edit',
      '#6 Agent',
      '#7 Read',
    ]);
    expect(await page.locator('#findings li').allInnerTexts()).toEqual([
      expect.stringMatching(
        /^call-denied #2 Read .* rule: Read\(\.\/secret\.env\) \(\.claude\/settings\.json\)$/,
      ),
      expect.stringMatching(/^call-denied #3 Bash rm a\.txt was denied: denied by PreToolUse hook/),
      expect.stringMatching(/^hook-failed #5 PreToolUse hook sh hooks\/broken\.sh/),
    ]);
    expect(requests).toEqual([page.url()]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('hides the allowed calls when filtered to denials, and filters by tool', async () => {
    const { page } = await open(renderAuditHtml({ run, patch: PATCH }));
    await page.selectOption('#filter-decision', 'deny');
    expect(await visibleCalls(page)).toEqual(['#2 Read', '#3 Bash']);
    expect(await page.locator('#timeline li:visible').allInnerTexts()).toEqual(['2', '3']);
    expect(await page.locator('#shown-count').innerText()).toBe('2');
    await page.selectOption('#filter-decision', '');
    await page.selectOption('#filter-tool', 'Bash');
    expect(await visibleCalls(page)).toEqual(['#3 Bash', '#4 Bash']);
    await page.selectOption('#filter-decision', 'allow');
    expect(await visibleCalls(page)).toEqual(['#4 Bash']);
    await page.close();
  });

  it('shows a call’s input, decision, rule and file, hooks and result when opened', async () => {
    const { page } = await open(renderAuditHtml({ run, patch: PATCH }));
    await page.click('#call-3 summary');
    const detail = await page.locator('#call-3 .detail').innerText();
    expect(detail).toContain('"command": "rm a.txt"');
    expect(detail).toContain('deny (hook): denied by PreToolUse hook');
    expect(detail).toMatch(
      /PreToolUse sh hooks\/block-rm\.sh: exit 2, completed, said deny, from \.claude\/settings\.json/,
    );
    expect(detail).toContain('rm is forbidden here');
    await page.click('#call-2 summary');
    expect(await page.locator('#call-2 .rules').innerText()).toBe(
      'Read(./secret.env) from .claude/settings.json',
    );
    await page.close();
  });

  it('shows the diff, and the log’s markup as text without running any of it', async () => {
    const { page, errors } = await open(renderAuditHtml({ run, patch: PATCH }));
    const diff = page.locator('#diff');
    expect(await diff.isVisible()).toBe(true);
    expect(await diff.innerText()).toContain(`+${SCRIPT_ATTACK}`);
    await page.click('#call-4 summary');
    expect(await page.locator('#call-4 .result').innerText()).toContain(SCRIPT_ATTACK);
    expect(await page.locator('#call-4 .result').innerText()).toContain('\\x1b[31mred');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('runs no script but its own even when markup gets into the page (the CSP holds)', async () => {
    const html = renderAuditHtml({ run, patch: PATCH }).replace(
      '</body>',
      `<script>window.__pwned = 3</script><div id="x" onclick="window.__pwned = 4">click me</div></body>`,
    );
    const { page } = await open(html, 'injected.html');
    await page.click('#x', { force: true });
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await page.selectOption('#filter-decision', 'deny'); // the page's own script still runs
    expect(await visibleCalls(page)).toEqual(['#2 Read', '#3 Bash']);
    await page.close();
  });

  it('shows what a judged policy would say on each call', async () => {
    const policyPath = join(dir, 'org.yml');
    writeFileSync(policyPath, 'permissions:\n  deny:\n    - Bash(echo:*)\n');
    const judgement = await judgeRun(run, { policyPath });
    const { page } = await open(renderAuditHtml({ run, patch: PATCH, judgement }), 'judged.html');
    expect(await page.locator('#findings li .code').allInnerTexts()).toContain('judge-would-deny');
    await page.click('#call-4 summary');
    expect(await page.locator('#call-4 .judged').innerText()).toMatch(
      /^deny: denied by rule 'Bash\(echo:\*\)'/,
    );
    await page.close();
  });

  it('opens the page the action wrote into its artifact (the demo run)', async () => {
    const demo = await runDemo(() => undefined);
    try {
      expect(demo.conclusion).toBe('success');
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(join(demo.artifactsDir, 'audit.html')).href);
      expect(await page.locator('#timeline li').count()).toBe(5);
      // The Edit was an ask the policy's onAsk answered allow.
      await page.selectOption('#filter-decision', 'ask');
      expect(await visibleCalls(page)).toEqual(['#4 Edit']);
      expect(await page.locator('#diff').innerText()).toContain(
        '+  for (let i = 0; i < values.length; i++)',
      );
      expect(requests).toEqual([page.url()]);
      await page.close();
    } finally {
      rmSync(join(demo.artifactsDir, '..'), { recursive: true, force: true });
    }
  }, 60_000);

  it('says when the log has no result line and the run has no diff', async () => {
    const cut = readAuditRun(cli.lines.slice(0, 10));
    const { page } = await open(renderAuditHtml({ run: cut }), 'cut.html');
    expect(await page.locator('#outcome-text').innerText()).toContain('no result line');
    expect(await page.locator('#diff-section').innerText()).toContain('No changes.');
    await page.close();
  });
});
