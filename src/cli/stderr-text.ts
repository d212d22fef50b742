/**
 * Text for the CLI's stderr. In a workflow step, the runner reads every line of it as the step's
 * log, and a line that starts with `::` is a workflow command (`::add-mask::denied` would mask that
 * word in every later line, `::stop-commands::` would hide what follows). What the CLI prints
 * carries untrusted text — a denied command, a reason naming a file, a policy warning — so every
 * control character but the newline is shown as `\xNN` (a lone carriage return would start a line
 * of the runner's own), and a line that would start with `::` gets the CLI's prefix.
 */
import { neutralise } from '../util/neutralise.js';

export const STDERR_PREFIX = 'ci-agent: ';

export function stderrText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const shown = neutralise(line);
      return shown.trimStart().startsWith('::') ? `${STDERR_PREFIX}${shown}` : shown;
    })
    .join('\n');
}
