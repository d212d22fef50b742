/**
 * A fetched body as text for the model: HTML becomes Markdown (turndown), other text types are
 * kept as they are, anything else is refused. Scripts, styles and embedded frames are dropped
 * before conversion: they are not content and would only spend the model's context.
 *
 * turndown (and the DOM it parses with, ~0.25 MiB) loads on the first HTML page, not at start-up:
 * most runs never fetch a page, and every run pays for what loads before its first request.
 */
import type TurndownService from 'turndown';

/** Elements whose content never belongs in the page's text. */
const DROPPED_ELEMENTS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'SVG',
  'CANVAS',
  'HEAD',
]);

let converter: TurndownService | undefined;

export async function htmlToMarkdown(html: string): Promise<string> {
  const { default: Turndown } = await import('turndown');
  converter ??= new Turndown({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  }).remove((node: { nodeName: string }) => DROPPED_ELEMENTS.has(node.nodeName.toUpperCase()));
  return converter.turndown(html).trim();
}

export type PageText = { ok: true; text: string; isHtml: boolean } | { ok: false; message: string };

/** Decodes the body by its content type (charset included) and converts HTML. */
export async function pageText(body: Buffer, contentType: string): Promise<PageText> {
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim());
  const type = mediaType.toLowerCase();
  if (!isTextType(type, body)) {
    return { ok: false, message: `it is ${type || 'of an unknown type'}, not text` };
  }
  const text = decode(body, charsetOf(parameters));
  const isHtml =
    type === 'text/html' || type === 'application/xhtml+xml' || looksLikeHtml(type, text);
  return { ok: true, text: isHtml ? await htmlToMarkdown(text) : text, isHtml };
}

function isTextType(type: string, body: Buffer): boolean {
  if (type === '') return !body.subarray(0, 8192).includes(0);
  return (
    type.startsWith('text/') ||
    type.endsWith('+json') ||
    type.endsWith('+xml') ||
    [
      'application/json',
      'application/xml',
      'application/javascript',
      'application/x-yaml',
      'application/yaml',
      'application/toml',
    ].includes(type)
  );
}

/** A server that sends no type (or a bare text/plain) for an HTML page is common enough. */
function looksLikeHtml(type: string, text: string): boolean {
  return (type === '' || type === 'text/plain') && /^\s*(<!doctype html|<html[\s>])/i.test(text);
}

function charsetOf(parameters: readonly string[]): string {
  for (const parameter of parameters) {
    const match = /^charset\s*=\s*"?([^";]+)"?$/i.exec(parameter);
    if (match?.[1]) return match[1].trim();
  }
  return 'utf-8';
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    // An unknown label: UTF-8 is the web's default and decodes anything, if imperfectly.
    return new TextDecoder('utf-8').decode(body);
  }
}
