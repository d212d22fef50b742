/**
 * WebFetch: one web page, read for the model (docs/CC-COMPAT.md §3).
 *
 * 1. validateInput: the URL must parse, be http(s) and carry no credentials; http becomes https.
 * 2. checkPermissions: `domain:<host>`. The pipeline asks the deny rules before anything else,
 *    so a denied host is never connected to.
 * 3. call: the page from the 15-minute cache, or fetched (fetch-page.ts) from a public address
 *    only (public-address.ts: a host that is or resolves to a private one is refused); a redirect
 *    to another origin is reported, not followed; HTML becomes Markdown; the text is capped.
 * 4. With `queryModel` in the context, a small model answers the call's prompt over the page and
 *    the answer is the result; without it (or when it fails), the capped page is.
 *
 * Declared not read-only although it changes nothing here: the URL itself leaves the machine,
 * so the mode default must not allow it; a rule (`WebFetch(domain:…)`) or bypassPermissions does.
 */
import * as z from 'zod';
import { defineTool } from '../tool.js';
import type { Tool, ToolCallGenerator, ToolContext, ValidationResult } from '../tool.js';
import type { ToolResultBlock } from '../../model/types.js';
import { errorMessage } from '../../util/errors.js';
import type { CrossOriginRedirect } from './web/fetch-page.js';
import type { Resolve } from './web/public-address.js';
import { PageCache } from './web/page-cache.js';
import type { CachedPage } from './web/page-cache.js';
import { checkFetchUrl, domainRuleContent } from './web/web-url.js';

export const MAX_PAGE_BYTES = 10 * 1024 * 1024;
export const MAX_PAGE_CHARS = 100_000;
export const FETCH_TIMEOUT_MS = 60_000;

const inputSchema = z.object({
  url: z
    .string()
    .describe('The URL to fetch: a full http or https URL (http is upgraded to https).'),
  prompt: z
    .string()
    .describe('What to find out or extract from the page; it is answered from the page content.'),
});

export interface WebFetchOutput {
  /** Size of the body received, in bytes (after decompression). */
  bytes: number;
  code: number;
  codeText: string;
  /** What the model reads: the answer to the prompt, the page, or the redirect notice. */
  result: string;
  durationMs: number;
  url: string;
}

/** Set in code only: the built-in tool has none, and neither the policy nor the model reaches them. */
export interface WebFetchOptions {
  /** Certificate authorities to trust besides the system's (PEM): tests serve their own. */
  ca?: string;
  /** Host name to addresses, instead of the system's resolver: tests answer for made-up names. */
  resolve?: Resolve;
  /** Non-public addresses fetched all the same: a test's own loopback server. */
  testAddresses?: readonly string[];
  timeoutMs?: number;
  maxBytes?: number;
  cache?: PageCache;
}

const description = `Fetches a web page and answers a prompt about its content.

- Takes a full URL and a prompt. The page is downloaded (http is upgraded to https), HTML is converted to Markdown, and a small, fast model answers the prompt from it; you receive that answer.
- It changes nothing and sends nothing but the URL itself. Pages are cached for 15 minutes.
- Very large pages are cut; ask precise questions.
- When the URL redirects to a different host, the result says so and gives the new URL: call WebFetch again with it.
- Which hosts may be fetched is set by the repository's policy; a refused host cannot be reached by any URL form.
- Only pages on the public internet can be fetched: a host that is or resolves to a private, loopback or link-local address is refused.
- Prefer a tool that reads files locally when the content is already in the repository.`;

export function createWebFetchTool(options: WebFetchOptions = {}): Tool {
  const cache = options.cache ?? new PageCache();
  return defineTool<typeof inputSchema, WebFetchOutput>({
    name: 'WebFetch',
    description,
    internalInputSchema: inputSchema,
    userFacingName: () => 'Fetch',
    isConcurrencySafe: () => true,

    checkPermissions: (input) => ({ access: 'other', ruleContent: domainRuleContent(input.url) }),

    async validateInput(input): Promise<ValidationResult> {
      const check = checkFetchUrl(input.url);
      return check.ok ? { result: true } : { result: false, message: check.message, errorCode: 1 };
    },

    call: (input, context) => fetchAndAnswer(input, context, cache, options),

    mapToolResultToToolResultBlockParam(output, toolUseId): ToolResultBlock {
      return { type: 'tool_result', tool_use_id: toolUseId, content: output.result };
    },
  });
}

export const webFetchTool = createWebFetchTool();

async function* fetchAndAnswer(
  input: z.infer<typeof inputSchema>,
  context: ToolContext,
  cache: PageCache,
  options: WebFetchOptions,
): ToolCallGenerator<WebFetchOutput> {
  const started = performance.now();
  const check = checkFetchUrl(input.url);
  if (!check.ok) throw new Error(check.message);
  // The fetch, the page's conversion and the answer load with the first call, not at start-up.
  const [{ fetchPage }, { pageText }, { pageQuery, unansweredText }] = await Promise.all([
    import('./web/fetch-page.js'),
    import('./web/page-text.js'),
    import('./web/page-answer.js'),
  ]);
  const url = check.url;
  const done = (page: Omit<WebFetchOutput, 'durationMs'>) => ({
    data: { ...page, durationMs: Math.round(performance.now() - started) },
  });

  let page = cache.get(url.href);
  if (page === undefined) {
    yield { type: 'progress', message: `Fetching ${url.href}` };
    const fetched = await fetchPage(url, {
      signal: context.signal,
      timeoutMs: options.timeoutMs ?? FETCH_TIMEOUT_MS,
      maxBytes: options.maxBytes ?? MAX_PAGE_BYTES,
      ...(options.ca !== undefined && { ca: options.ca }),
      ...(options.resolve !== undefined && { resolve: options.resolve }),
      ...(options.testAddresses !== undefined && { testAddresses: options.testAddresses }),
    });
    if (fetched.kind === 'redirect') {
      return done({
        bytes: 0,
        code: fetched.code,
        codeText: fetched.codeText,
        url: url.href,
        result: redirectNotice(fetched, input.prompt),
      });
    }
    if (fetched.code >= 400) {
      throw new Error(
        `Request failed with status code ${fetched.code} ${fetched.codeText}: ${fetched.url.href}`,
      );
    }
    const text = await pageText(fetched.body, fetched.contentType);
    if (!text.ok) {
      throw new Error(
        `WebFetch reads text pages only: ${fetched.url.href} returned ${fetched.body.length} bytes and ${text.message}.`,
      );
    }
    page = {
      url: fetched.url.href,
      code: fetched.code,
      codeText: fetched.codeText,
      bytes: fetched.body.length,
      text: text.text,
      truncated: fetched.truncated,
    };
    cache.set(url.href, page);
  }

  const content = cappedText(page);
  const base = { bytes: page.bytes, code: page.code, codeText: page.codeText, url: page.url };
  if (context.queryModel === undefined) return done({ ...base, result: content });
  yield { type: 'progress', message: 'Answering the prompt from the page' };
  try {
    const answer = await context.queryModel(
      pageQuery(page.url, content, input.prompt, context.signal),
    );
    return done({ ...base, result: answer });
  } catch (error) {
    context.signal.throwIfAborted();
    return done({ ...base, result: unansweredText(errorMessage(error), content) });
  }
}

function cappedText(page: CachedPage): string {
  if (page.text.length <= MAX_PAGE_CHARS && !page.truncated) return page.text;
  return `${page.text.slice(0, MAX_PAGE_CHARS)}\n\n[Content truncated: the page is longer than WebFetch reads.]`;
}

function redirectNotice(redirect: CrossOriginRedirect, prompt: string): string {
  return `REDIRECT DETECTED: The URL redirects to a different host.

Original URL: ${redirect.from.href}
Redirect URL: ${redirect.to.href}
Status: ${redirect.code} ${redirect.codeText}

To read the page, call WebFetch again with these parameters (the new host must be allowed on its own):
- url: "${redirect.to.href}"
- prompt: "${prompt}"`;
}
