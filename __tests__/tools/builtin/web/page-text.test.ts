import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, pageText } from '../../../../src/tools/builtin/web/page-text.js';

describe('htmlToMarkdown', () => {
  it('turns headings, emphasis, links, code and lists into Markdown', async () => {
    const html = `<h1>Guide</h1><p>Run <strong>this</strong>, see <a href="https://x.dev/a">docs</a>.</p>
      <pre><code>npm test</code></pre><ul><li>one</li><li>two</li></ul>`;

    expect(await htmlToMarkdown(html)).toBe(
      '# Guide\n\nRun **this**, see [docs](https://x.dev/a).\n\n```\nnpm test\n```\n\n-   one\n-   two',
    );
  });

  it('drops scripts, styles, frames and the head', async () => {
    const html = `<html><head><meta name="x" content="y"><style>p{}</style></head><body>
      <script>steal()</script><noscript>enable js</noscript><iframe src="x"></iframe>
      <p>kept</p><svg><text>chart</text></svg></body></html>`;

    expect(await htmlToMarkdown(html)).toBe('kept');
  });
});

describe('pageText', () => {
  it('converts an HTML body to Markdown', async () => {
    expect(await pageText(Buffer.from('<p>Hi <em>there</em></p>'), 'text/html')).toEqual({
      ok: true,
      text: 'Hi _there_',
      isHtml: true,
    });
  });

  it('keeps plain text, JSON and other text types as they are', async () => {
    for (const type of [
      'text/plain',
      'application/json',
      'application/vnd.api+json',
      'text/x-python',
    ]) {
      expect(await pageText(Buffer.from('{"a": "<b>"}'), type)).toEqual({
        ok: true,
        text: '{"a": "<b>"}',
        isHtml: false,
      });
    }
  });

  it('decodes by the charset the content type names', async () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    expect(await pageText(latin1, 'text/plain; charset="ISO-8859-1"')).toMatchObject({
      text: 'café',
    });
  });

  it('falls back to UTF-8 for a charset it does not know', async () => {
    expect(await pageText(Buffer.from('né'), 'text/plain; charset=klingon')).toMatchObject({
      text: 'né',
    });
  });

  it('converts an HTML page served as text/plain or without a type', async () => {
    const html = Buffer.from('<!DOCTYPE html><html><body><h2>T</h2></body></html>');
    expect(await pageText(html, 'text/plain')).toMatchObject({ text: '## T', isHtml: true });
    expect(await pageText(html, '')).toMatchObject({ text: '## T', isHtml: true });
  });

  describe('when the body is not text', () => {
    it('refuses a binary type, naming it', async () => {
      expect(await pageText(Buffer.from([1, 2, 3]), 'image/png')).toEqual({
        ok: false,
        message: 'it is image/png, not text',
      });
      expect(await pageText(Buffer.from('%PDF-1.7'), 'application/pdf')).toMatchObject({
        ok: false,
      });
    });

    it('refuses an untyped body with NUL bytes', async () => {
      expect(await pageText(Buffer.from([0x41, 0, 0x42]), '')).toEqual({
        ok: false,
        message: 'it is of an unknown type, not text',
      });
    });
  });
});
