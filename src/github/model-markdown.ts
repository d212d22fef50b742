/**
 * The model's final text, as Markdown a maintainer can read (lists, emphasis, code, tables, task
 * lists stay) that cannot change the report around it (issue 12, item 1). The text is parsed as
 * GFM and written back from an allowlist of node kinds, so what is left is only what the writer
 * escapes:
 *
 * - raw HTML (a comment opener, `</details>`, any tag) becomes text, shown as written;
 * - headings become bold paragraphs: the model cannot fake one of the report's sections;
 * - links, images and footnotes become text with their target as code: nothing is clickable
 *   or loaded, and no footnote lands after the report's footer;
 * - `@`, `#` before a digit, `://` and `www.` in text get a `<wbr>` (see markdown-escape.ts):
 *   no mention notifies, no reference or autolink forms, and copying gives the text unchanged.
 *
 * It is loaded with a dynamic import: the parser is needed only when the report is written.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown } from 'mdast-util-to-markdown';
import { gfm } from 'micromark-extension-gfm';
import type { Nodes, PhrasingContent, Root, RootContent, Text } from 'mdast';

/** Node kinds kept as they are (their children are made safe in turn). */
const KEPT = new Set([
  'root',
  'paragraph',
  'emphasis',
  'strong',
  'delete',
  'inlineCode',
  'code',
  'list',
  'listItem',
  'blockquote',
  'table',
  'tableRow',
  'tableCell',
  'thematicBreak',
  'break',
]);

/** The model's Markdown, made safe, as a blockquote (so it reads as the model's words). */
export function modelMarkdown(text: string): string {
  const tree = fromMarkdown(text, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  const quoted: Root = {
    type: 'root',
    children: [{ type: 'blockquote', children: safeChildren(tree.children, true) as never }],
  };
  return toMarkdown(quoted, { extensions: [gfmToMarkdown()], fences: true, bullet: '-' }).trimEnd();
}

/** Parents whose children are blocks: text put there needs a paragraph around it. */
const FLOW = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);

function safeChildren(children: readonly RootContent[], flow = true): RootContent[] {
  return children.flatMap((child) => {
    const safe = safeNode(child);
    if (!flow || safe.every((node) => !isPhrasing(node))) return safe;
    return [{ type: 'paragraph', children: safe as PhrasingContent[] }];
  });
}

function isPhrasing(node: RootContent): boolean {
  return node.type === 'text' || node.type === 'html' || node.type === 'inlineCode';
}

function safeNode(node: RootContent): RootContent[] {
  if (node.type === 'text') return breakLinks(node.value);
  if (KEPT.has(node.type)) {
    if ('children' in node) {
      (node as { children: RootContent[] }).children = safeChildren(
        node.children,
        FLOW.has(node.type),
      );
    }
    return [node];
  }
  const inline = (value: string): PhrasingContent => ({ type: 'inlineCode', value });
  switch (node.type) {
    case 'heading':
      return [
        { type: 'paragraph', children: [{ type: 'strong', children: phrasing(node.children) }] },
      ];
    case 'html':
      return breakLinks(node.value);
    case 'link': {
      const label = toText(node);
      // An autolink (`https://…`, `a@b.com`) shows once, as code.
      if (label === node.url || `mailto:${label}` === node.url) return [inline(label)];
      return [...phrasing(node.children), text(' ('), inline(node.url), text(')')];
    }
    case 'image':
      return [text(`[image${node.alt ? `: ${node.alt}` : ''}] (`), inline(node.url), text(')')];
    case 'linkReference':
      return phrasing(node.children);
    case 'imageReference':
      return [text(`[image${node.alt ? `: ${node.alt}` : ''}]`)];
    case 'definition':
      return [
        {
          type: 'paragraph',
          children: [inline(`[${node.label ?? node.identifier}]: ${node.url}`)],
        },
      ];
    case 'footnoteReference':
      return [text(`[^${node.label ?? node.identifier}]`)];
    case 'footnoteDefinition':
      return [
        { type: 'paragraph', children: [text(`[^${node.label ?? node.identifier}]:`)] },
        ...safeChildren(node.children, true),
      ];
    default:
      // Anything else the parser may grow is kept as its text only.
      return breakLinks(toText(node));
  }
}

function phrasing(children: readonly RootContent[]): PhrasingContent[] {
  return safeChildren(children, false) as PhrasingContent[];
}

function text(value: string): Text {
  return { type: 'text', value };
}

/** Where GitHub would start a mention, reference or autolink: the same places as escapeText. */
const LINK_STARTS = /(?<=@|#(?=\d)|:(?=\/\/)|(?<=www)(?=\.))/gi;

function breakLinks(value: string): RootContent[] {
  const pieces = value.split(LINK_STARTS);
  return pieces.flatMap((piece, index): RootContent[] => [
    ...(index > 0 ? [{ type: 'html', value: '<wbr>' } as const] : []),
    ...(piece === '' ? [] : [text(piece)]),
  ]);
}

function toText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(toText).join('');
  return '';
}
