/**
 * The audit page of a real run (the built CLI, audit-fixture.ts, its hash-chained --log-file) as
 * a reviewer sees it: opened from a file in a real headless Chromium (/usr/bin/chromium through
 * playwright-core), asserting on what the page shows — the chain's verdict first, for a whole,
 * a tampered, a cut and an unchained log — and on what it must never do (run the log's scripts,
 * make a request).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderAuditHtml } from '../../src/audit/html.js';
import type { AuditPageInput } from '../../src/audit/html.js';
import { judgeRun } from '../../src/audit/judge.js';
import { main } from '../../src/cli/main.js';
import { runDemo } from '../../src/demo/main.js';
import { parseLogLines, readAuditRun } from '../../src/audit/records.js';
import type { AuditRun } from '../../src/audit/records.js';
import { verifyLogText } from '../../src/audit/verify.js';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { PATCH, SCRIPT_ATTACK, auditedRun } from './audit-fixture.js';

// CI installs Chromium (.ci/run); elsewhere the test says it was skipped rather than pass unseen.
const ready = hasChromium || process.env.CI === 'true';
if (!ready) console.warn('html-browser: /usr/bin/chromium is missing: skipped');

let cli: CliRun;
/** The run's tool log file, as the CLI wrote it (hash-chained), and the run read from it. */
let logText: string;
let run: AuditRun;
let browser: Browser;
let dir: string;

/** The page of the run's whole log, verified as it is. */
function wholePage(extra: Partial<AuditPageInput> = {}): string {
  return renderAuditHtml({
    run,
    verification: { verdict: verifyLogText(logText) },
    patch: PATCH,
    ...extra,
  });
}

describe.skipIf(!ready)('the audit page in Chromium', () => {
  beforeAll(async () => {
    cli = await auditedRun(['--log-file', 'tool-log.jsonl']);
    logText = readFileSync(cli.workspace.path('tool-log.jsonl'), 'utf8');
    run = readAuditRun(parseLogLines(logText));
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
    const { page, requests, errors } = await open(wholePage());
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
    const { page } = await open(wholePage());
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
    const { page } = await open(wholePage());
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
    const { page, errors } = await open(wholePage());
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
    const html = wholePage().replace(
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
    const { page } = await open(wholePage({ judgement }), 'judged.html');
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
      expect(await page.locator('#chain-status').innerText()).toBe('Tool log chain: Verified');
      expect(await page.locator('#chain-text').innerText()).toMatch(
        /closed; final hash (sha256:[0-9a-f]{64}), and it is the run's published log-hash \(\1\)\.$/,
      );
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

  describe('the chain verdict at the top of the page', () => {
    let pages = 0;
    /** `ci-agent audit explain <log> --format html --out page.html` on `text`; the page opened. */
    async function auditedPage(text: string, ...args: string[]) {
      const log = join(dir, `log-${++pages}.jsonl`);
      const out = join(dir, `page-${pages}.html`);
      writeFileSync(log, text);
      let stderr = '';
      const code = await main({
        argv: ['audit', 'explain', log, '--format', 'html', '--out', out, ...args],
        env: {},
        cwd: dir,
        stdout: () => undefined,
        stderr: (chunk) => (stderr += chunk),
        readStdin: () => Promise.resolve(undefined),
      });
      const { page } = await open(readFileSync(out, 'utf8'), `shown-${pages}.html`);
      const chain = {
        status: await page.locator('#chain-status').innerText(),
        text: await page.locator('#chain-text').innerText(),
        visible: await page.locator('#chain').isVisible(),
        unverified: await page
          .locator('#calls > li:has(.badge.unverified) summary strong')
          .allInnerTexts(),
      };
      return { code, stderr, page, chain };
    }

    it('says a whole log verified, with its final hash and what it was checked against', async () => {
      const hash = verifyLogText(logText).finalHash!;
      const checked = await auditedPage(logText, '--expect-hash', hash);
      expect(checked.code, checked.stderr).toBe(1); // the run's denials are findings
      expect(checked.chain).toMatchObject({ status: 'Tool log chain: Verified', visible: true });
      expect(checked.chain.text).toBe(
        `Verified: ${logText.split('\n').length - 1} line(s), closed; final hash ${hash}, and it is the hash given with --expect-hash (${hash}).`,
      );
      expect(checked.chain.unverified).toEqual([]);
      await checked.page.close();

      const unchecked = await auditedPage(logText);
      expect(unchecked.chain.status).toBe('Tool log chain: Verified');
      expect(unchecked.chain.text).toContain('no published hash was given to check it against');
      await unchecked.page.close();
    });

    it('says a tampered log FAILED at its first bad line, how, and marks the calls it touches', async () => {
      // The attacker turns the hook's denial of `rm a.txt` into an allow.
      const lines = logText.split('\n');
      const index = lines.findIndex(
        (line) => line.includes('"permission_decision"') && line.includes('"toolu_03"'),
      );
      expect(lines[index]).toContain('"behavior":"deny"');
      lines[index] = lines[index]!.replace('"behavior":"deny"', '"behavior":"allow"');
      const { code, page, chain } = await auditedPage(lines.join('\n'));
      expect(code).toBe(2);
      expect(chain.status).toBe('Tool log chain: FAILED');
      expect(chain.text).toMatch(
        new RegExp(
          `^FAILED verification at line ${index + 1} \\(edited\\): line ${index + 1} was edited: its hash does not follow from its content and line ${index}\\. The ${index} line\\(s\\) before it verify`,
        ),
      );
      // #1 and #2 ended before the edited line; #3 (the edited decision's) and the rest did not.
      expect(chain.unverified).toEqual(['#3 Bash', '#4 Bash', '#5 Edit', '#6 Agent', '#7 Read']);
      // A string: the test files are compiled without the DOM library.
      expect(
        await page.evaluate("getComputedStyle(document.getElementById('chain')).backgroundColor"),
      ).toBe('rgb(255, 235, 233)');
      await page.close();
    });

    it('says a log cut short is incomplete, and where', async () => {
      const lines = logText.split('\n').slice(0, 12);
      const { code, page, chain } = await auditedPage(`${lines.join('\n')}\n`);
      expect(code).toBe(1);
      expect(chain.status).toBe('Tool log chain: Incomplete');
      expect(chain.text).toBe(
        'Verified up to line 12, incomplete: the log has no closing line (the run was killed or is still going); the 12 whole line(s) before it verify.',
      );
      await page.close();
    });

    it('says a log with no chain (stdout stream-json) proves nothing', async () => {
      const stdout = cli.lines.map((line) => `${JSON.stringify(line)}\n`).join('');
      const { code, page, chain } = await auditedPage(stdout);
      expect(code).toBe(2);
      expect(chain.status).toBe('Tool log chain: No chain');
      expect(chain.text).toMatch(/^No hash chain: line 1 has no ci_agent_chain field/);
      expect(chain.text).toContain("Nothing proves that these lines are the run's");
      // The calls are still shown, all of them unproven.
      expect(chain.unverified).toHaveLength(7);
      await page.close();
    });
  });

  it('says when the log has no result line and the run has no diff', async () => {
    const cut = readAuditRun(cli.lines.slice(0, 10));
    const verification = { verdict: verifyLogText(logText) };
    const { page } = await open(renderAuditHtml({ run: cut, verification }), 'cut.html');
    expect(await page.locator('#outcome-text').innerText()).toContain('no result line');
    expect(await page.locator('#diff-section').innerText()).toContain('No changes.');
    await page.close();
  });
});
