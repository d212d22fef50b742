/**
 * Markdown rendered as GitHub renders a comment, for tests that assert on what a reader sees
 * rather than on the Markdown string. Two renderers, because escaping must hold in both:
 *
 * - `cmark-gfm`: GitHub's own parser (Debian package `cmark-gfm`, installed by .ci/run), with the
 *   extensions github.com enables and raw HTML kept, then GitHub's sanitation;
 * - `remark`: remark-parse + remark-gfm + remark-rehype + rehype-raw, then the same sanitation.
 *
 * The sanitation is rehype-sanitize's default schema (GitHub's rules) plus what github.com also
 * keeps: `<wbr>` and `<details open>`.
 */
import { execaSync } from 'execa';
import type { Element, ElementContent, Root, RootContent, Text } from 'hast';
import { toText } from 'hast-util-to-text';
import rehypeParse from 'rehype-parse';
import rehypeRaw from 'rehype-raw';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

export type Renderer = 'cmark-gfm' | 'remark';

const schema = {
  ...defaultSchema,
  tagNames: [...(defaultSchema.tagNames ?? []), 'wbr'],
  attributes: { ...defaultSchema.attributes, details: ['open'] },
};

/** True when GitHub's parser is installed; CI (CI=true) must have it. */
export const hasCmarkGfm =
  execaSync('cmark-gfm', ['--version'], { stdio: 'ignore', reject: false }).exitCode === 0;

export const renderers: Renderer[] =
  hasCmarkGfm || process.env.CI === 'true' ? ['cmark-gfm', 'remark'] : ['remark'];

/** The sanitized HTML tree a GitHub reader gets for `markdown`. */
export function renderGfm(markdown: string, renderer: Renderer = 'cmark-gfm'): Root {
  if (renderer === 'remark') {
    const processor = unified()
      .use(remarkParse)
      .use(remarkGfm)
      .use(remarkRehype, { allowDangerousHtml: true })
      .use(rehypeRaw)
      .use(rehypeSanitize, schema);
    return processor.runSync(processor.parse(markdown));
  }
  const html = execaSync(
    'cmark-gfm',
    [
      '--unsafe',
      ...['table', 'autolink', 'strikethrough', 'tasklist', 'tagfilter'].flatMap((e) => ['-e', e]),
    ],
    { input: markdown, maxBuffer: 64 * 1024 * 1024, stripFinalNewline: false },
  ).stdout;
  const processor = unified().use(rehypeParse, { fragment: true }).use(rehypeSanitize, schema);
  return processor.runSync(processor.parse(html));
}

export function htmlOf(tree: Root): string {
  return unified().use(rehypeStringify).stringify(tree);
}

/** What a reader sees, as innerText gives it (closed `<details>` included). */
export function visibleText(tree: Root): string {
  return toText(tree);
}

/** Every element, depth first, with its ancestors' tag names. */
function* elements(
  node: Root | Element,
  parents: string[] = [],
): Generator<{ node: Element | Text; parents: string[] }> {
  for (const child of node.children as Array<RootContent | ElementContent>) {
    if (child.type === 'element') {
      yield { node: child, parents };
      yield* elements(child, [...parents, child.tagName]);
    } else if (child.type === 'text') {
      yield { node: child, parents };
    }
  }
}

export function elementsNamed(tree: Root, tagName: string): Element[] {
  return [...elements(tree)]
    .map(({ node }) => node)
    .filter((node): node is Element => node.type === 'element' && node.tagName === tagName);
}

/** The href of every link. */
export function linkTargets(tree: Root): string[] {
  return elementsNamed(tree, 'a').map((a) => String(a.properties.href ?? ''));
}

/**
 * Text GitHub's filters would act on after the parser: an `@mention`, an issue reference, an
 * emoji shortcode, or a URL or address to autolink. They match within one text node and skip
 * code, pre and links, so that is what is searched.
 */
const FILTERED = /(?:^|[^\w`])@[a-z\d]|#\d|https?:\/\/|www\.|[\w.+-]@[\w-]+\./i;
const EMOJI = /:[\w+-]+:/;

/** `emoji: false` for the model's Markdown, which may use shortcodes as formatting. */
export function filteredText(tree: Root, { emoji = true } = {}): string[] {
  return [...elements(tree)]
    .filter(
      ({ node, parents }) =>
        node.type === 'text' && !parents.some((tag) => ['code', 'pre', 'a'].includes(tag)),
    )
    .map(({ node }) => (node as Text).value)
    .filter((value) => FILTERED.test(value) || (emoji && EMOJI.test(value)));
}

/** Each table as rows of cell texts. */
export function tables(tree: Root): string[][][] {
  return elementsNamed(tree, 'table').map((table) =>
    elementsNamed({ type: 'root', children: [table] }, 'tr').map((row) =>
      row.children
        .filter(
          (cell): cell is Element => cell.type === 'element' && ['td', 'th'].includes(cell.tagName),
        )
        .map((cell) => toText(cell)),
    ),
  );
}
