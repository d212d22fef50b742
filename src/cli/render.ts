/**
 * The CLI's stdout in the `claude -p` output formats (docs/CC-COMPAT.md §4), on top of the stream-json
 * lines (log/stream-json.ts) the tool log is made of too: text prints the final result, and
 * nothing when the run ended in an error (that goes to stderr: stderr-reporter.ts); json
 * prints the result message (with --verbose, the array of all messages); stream-json prints
 * each line as it comes. Lines arrive masked, so stdout never shows a known secret.
 */
import type { LineSink, StreamJsonLine } from '../log/stream-json.js';
import type { OutputFormat } from './args.js';

export const CI_AGENT_VERSION = '0.1.0';

export class OutputRenderer {
  private readonly collected: StreamJsonLine[] = [];

  constructor(
    private readonly format: OutputFormat,
    private readonly verbose: boolean,
    private readonly write: (text: string) => void,
  ) {}

  /** Feed every line of the run, in order; the `result` line ends the output. */
  readonly accept: LineSink = (line) => {
    if (this.format === 'stream-json') this.write(`${JSON.stringify(line)}\n`);
    else if (this.format === 'json' && this.verbose) this.collected.push(line);
    if (line.type === 'result') this.finish(line);
  };

  private finish(result: StreamJsonLine): void {
    if (this.format === 'json') {
      this.write(`${JSON.stringify(this.verbose ? this.collected : result)}\n`);
    } else if (this.format === 'text' && result.subtype === 'success') {
      this.write(`${typeof result.result === 'string' ? result.result : ''}\n`);
    }
  }
}
