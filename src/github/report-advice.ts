/**
 * A denial's suggestion in the report (docs/DECISIONS.md #22): the rules to add, each as a code
 * span, the file and field they go in, the rules to remove and where from, or why nothing can
 * allow the call. The rules hold the command the model wrote, so they are code spans
 * (markdown-escape.ts), never Markdown; our sentence around them is escaped text.
 */
import type { DenialAdviceRecord } from '../permissions/denial-advice.js';
import { codeSpan, escapeProse, escapeText } from './markdown-escape.js';

/** `To allow it: ….` or `It cannot be allowed: ….`, to follow a denial's reason; '' without one. */
export function adviceMarkdown(
  advice: DenialAdviceRecord | undefined,
  relative: (text: string) => string,
): string {
  if (!advice) return '';
  if (!advice.allowable) return `It cannot be allowed: ${escapeProse(relative(advice.text))}.`;
  const place = (source: string) =>
    source.startsWith('--')
      ? `${escapeText('given with')} ${codeSpan(source)}`
      : `${escapeText('from')} ${codeSpan(relative(source))}`;
  const steps = [
    ...advice.remove_rules.map(
      (item) =>
        `${escapeText(`remove the ${item.list} rule`)} ${codeSpan(item.rule)} ${place(item.source)}`,
    ),
    ...(advice.add_rules.length > 0
      ? [
          `add ${listed(advice.add_rules.map(codeSpan))} to ${codeSpan('permissions.allow')} in ${codeSpan(relative(advice.file ?? ''))}`,
        ]
      : []),
  ];
  const onAsk = advice.on_ask
    ? `set ${codeSpan(`permissions.onAsk.tools.${advice.on_ask.tool}: allow`)} in ${codeSpan(relative(advice.on_ask.file))}`
    : undefined;
  const said =
    onAsk && steps.length > 0 ? `${listed(steps)}, or ${onAsk}` : (onAsk ?? listed(steps));
  return said === '' ? '' : `To allow it: ${said}.`;
}

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
