/**
 * How the action talks to the runner: workflow commands on stdout (`::warning::…`,
 * `::add-mask::…`), step outputs in the `GITHUB_OUTPUT` file and the job summary in the
 * `GITHUB_STEP_SUMMARY` file, as GitHub's "Workflow commands" documentation describes them.
 *
 * Written here rather than taken from @actions/core: that package loads an HTTP client and undici
 * (~0.4 MiB) when imported, for OIDC tokens this action never asks for, and that load alone cost
 * about a third of the start-up budget (docs/BENCHMARKS.md, "The action's start-up").
 *
 * Every text written through it (log lines, annotations, outputs, the summary) passes the secret
 * masker first: the runner's own `add-mask` covers only the step log, not the output and summary
 * files, and only the raw value.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { EOL } from 'node:os';
import { createSecretMasker } from '../log/secret-masker.js';
import type { SecretMasker } from '../log/secret-masker.js';
import { secretValues } from '../util/child-env.js';

export interface WorkflowCommands {
  info: (message: string) => void;
  notice: (message: string) => void;
  warning: (message: string) => void;
  /** Marks the step failed (exit code 1) and logs the message as an error annotation. */
  setFailed: (message: string) => void;
  /** Registers a value the runner masks in every later log line. */
  setSecret: (value: string) => void;
  setOutput: (name: string, value: string | number) => void;
  /** Appends Markdown to the job summary; false when the runner gave no summary file. */
  appendSummary: (markdown: string) => boolean;
}

export interface WorkflowCommandsOptions {
  /** Where GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are read from. */
  env?: NodeJS.ProcessEnv;
  write?: (line: string) => void;
  /** Called by setFailed; sets process.exitCode unless replaced. */
  fail?: () => void;
  /** Masks every text written; by default the values of env's secret-named variables. */
  masker?: SecretMasker;
}

export function createWorkflowCommands(options: WorkflowCommandsOptions = {}): WorkflowCommands {
  const env = options.env ?? process.env;
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const fail =
    options.fail ??
    (() => {
      process.exitCode = 1;
    });
  const command = (name: string, message: string) =>
    write(`::${name}::${escapeData(message)}${EOL}`);
  const commands: WorkflowCommands = {
    info: (message) => write(`${message}${EOL}`),
    notice: (message) => command('notice', message),
    warning: (message) => command('warning', message),
    setFailed: (message) => {
      fail();
      command('error', message);
    },
    setSecret: (value) => {
      if (value !== '') command('add-mask', value);
    },
    setOutput: (name, value) => {
      const file = env.GITHUB_OUTPUT;
      const text = String(value);
      if (!file) {
        // Outside a runner (or an old one) the deprecated command is the only channel left.
        write(`${EOL}::set-output name=${escapeProperty(name)}::${escapeData(text)}${EOL}`);
        return;
      }
      appendFileSync(file, fileCommand(name, text));
    },
    appendSummary: (markdown) => {
      const file = env.GITHUB_STEP_SUMMARY;
      if (!file) return false;
      appendFileSync(file, markdown.endsWith(EOL) ? markdown : `${markdown}${EOL}`);
      return true;
    },
  };
  return maskWorkflowCommands(commands, options.masker ?? createSecretMasker(secretValues(env)));
}

/**
 * `commands` with every outgoing text masked: messages, output names and values, the summary.
 * setSecret alone passes its value on as it is, since registering it is its purpose.
 */
export function maskWorkflowCommands(
  commands: WorkflowCommands,
  masker: SecretMasker,
): WorkflowCommands {
  const mask = (text: string) => masker.mask(text);
  return {
    info: (message) => commands.info(mask(message)),
    notice: (message) => commands.notice(mask(message)),
    warning: (message) => commands.warning(mask(message)),
    setFailed: (message) => commands.setFailed(mask(message)),
    setSecret: (value) => commands.setSecret(value),
    setOutput: (name, value) => commands.setOutput(mask(name), mask(String(value))),
    appendSummary: (markdown) => commands.appendSummary(mask(markdown)),
  };
}

/**
 * `name<<DELIMITER`, the value, `DELIMITER`: the multi-line form of a file command. The delimiter
 * is random and checked against the value, so a value can never end the block early.
 */
export function fileCommand(name: string, value: string): string {
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter)) {
    throw new Error(`the output ${name} contains its own delimiter; refusing to write it`);
  }
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`;
}

/** A command's message: `%`, CR and LF would otherwise end or corrupt the command. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A command's property value additionally may not contain `:` or `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}
