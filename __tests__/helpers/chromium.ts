/**
 * A real headless browser for the report as a person sees it: the Markdown rendered by GitHub's
 * parser and sanitation (gfm.ts), styled with GitHub's Markdown CSS at the width of a comment,
 * in Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by playwright-core.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { htmlOf, renderGfm } from './gfm.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** The width of a comment's body on a pull request page, in CSS pixels. */
export const COMMENT_WIDTH = 780;

const css = readFileSync(
  createRequire(import.meta.url).resolve('github-markdown-css/github-markdown-light.css'),
  'utf8',
);

/** A page that shows `markdown` as a GitHub comment does. */
export function commentPage(markdown: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>${css}
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; width: ${COMMENT_WIDTH}px; padding: 16px; }
</style></head><body><article class="markdown-body">${htmlOf(renderGfm(markdown))}</article></body></html>`;
}

export interface Browser {
  /**
   * A page showing `markdown`, every `<details>` opened (a reader can open them) unless
   * `openDetails` is false: then as GitHub first shows it.
   */
  show(markdown: string, options?: { openDetails?: boolean }): Promise<Page>;
  close(): Promise<void>;
}

/** Chromium with a fresh profile and nothing that reaches the network on its own. */
export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'ci-agent-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    async show(markdown, { openDetails = true } = {}) {
      const page = await context.newPage();
      await page.setContent(commentPage(markdown));
      // A string: the test files are compiled without the DOM library.
      if (openDetails)
        await page.evaluate(
          "for (const details of document.querySelectorAll('details')) details.open = true",
        );
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
