/**
 * How the action talks to the runner, through @actions/core: log lines and annotations (notice,
 * warning, error, with the file and line where there is one) and groups on stdout, `add-mask`,
 * step outputs in the `GITHUB_OUTPUT` file and the job summary in the `GITHUB_STEP_SUMMARY` file.
 * Failing the step is main.ts's alone (core.setFailed), so that the step's status has one source.
 *
 * Every text written through it (log lines, annotations and their titles, group names, outputs,
 * the summary) passes the secret masker before core sees it: the runner's own `add-mask` covers
 * only the step log, not the output and summary files, and only the raw value.
 *
 * The files are the environment's the channel was made for (options.env): core reads them from
 * process.env, so each call that reads one runs inside withRunnerEnv.
 */
import * as core from '@actions/core';
import type { AnnotationProperties } from '@actions/core';
import { EOL } from 'node:os';
import { createSecretMasker } from '../log/secret-masker.js';
import type { SecretMasker } from '../log/secret-masker.js';
import { secretValues } from '../util/child-env.js';
import { withRunnerEnv } from './runner-env.js';

export type { AnnotationProperties };

export interface WorkflowCommands {
  info: (message: string) => void;
  notice: (message: string, properties?: AnnotationProperties) => void;
  warning: (message: string, properties?: AnnotationProperties) => void;
  /** An error annotation; it does not fail the step (main.ts does, with core.setFailed). */
  error: (message: string, properties?: AnnotationProperties) => void;
  /** Folds what is logged while `work` runs into a group named `name` in the step log. */
  group: <T>(name: string, work: () => Promise<T>) => Promise<T>;
  /** Registers a value the runner masks in every later log line. */
  setSecret: (value: string) => void;
  setOutput: (name: string, value: string | number) => void;
  /** Appends Markdown to the job summary; false when the runner gave no summary file. */
  appendSummary: (markdown: string) => Promise<boolean>;
}

export interface WorkflowCommandsOptions {
  /** Where GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are read from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** Masks every text written; by default the values of env's secret-named variables. */
  masker?: SecretMasker;
}

type Summary = typeof core.summary;

export function createWorkflowCommands(options: WorkflowCommandsOptions = {}): WorkflowCommands {
  const env = options.env ?? process.env;
  const commands: WorkflowCommands = {
    info: (message) => core.info(message),
    notice: (message, properties) => core.notice(message, properties),
    warning: (message, properties) => core.warning(message, properties),
    error: (message, properties) => core.error(message, properties),
    group: (name, work) => core.group(name, work),
    setSecret: (value) => {
      if (value !== '') core.setSecret(value);
    },
    setOutput: (name, value) => withRunnerEnv(env, () => core.setOutput(name, String(value))),
    appendSummary: async (markdown) => {
      if (!env.GITHUB_STEP_SUMMARY) return false;
      // A summary of its own: core's shared one keeps the first file it found for good, and the
      // demo and the tests run several actions, each with its own file, in one process.
      const summary = new (core.summary.constructor as new () => Summary)();
      summary.addRaw(markdown, !markdown.endsWith(EOL));
      await withRunnerEnv(env, () => summary.write());
      return true;
    },
  };
  return maskWorkflowCommands(commands, options.masker ?? createSecretMasker(secretValues(env)));
}

/**
 * `commands` with every outgoing text masked: messages, annotation properties, group names,
 * output names and values, the summary. setSecret alone passes its value on as it is, since
 * registering it is its purpose.
 */
export function maskWorkflowCommands(
  commands: WorkflowCommands,
  masker: SecretMasker,
): WorkflowCommands {
  const mask = (text: string) => masker.mask(text);
  const maskProperties = (properties: AnnotationProperties | undefined) =>
    properties && {
      ...properties,
      ...(properties.title !== undefined && { title: mask(properties.title) }),
      ...(properties.file !== undefined && { file: mask(properties.file) }),
    };
  return {
    info: (message) => commands.info(mask(message)),
    notice: (message, properties) => commands.notice(mask(message), maskProperties(properties)),
    warning: (message, properties) => commands.warning(mask(message), maskProperties(properties)),
    error: (message, properties) => commands.error(mask(message), maskProperties(properties)),
    group: (name, work) => commands.group(mask(name), work),
    setSecret: (value) => commands.setSecret(value),
    setOutput: (name, value) => commands.setOutput(mask(name), mask(String(value))),
    appendSummary: (markdown) => commands.appendSummary(mask(markdown)),
  };
}
