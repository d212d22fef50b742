/**
 * The action's single failure point: runs the action, turns its outcome into the step's status
 * (an honest conclusion: failed, denied, limit, no changes and cancelled fail the step), and maps
 * SIGTERM/SIGINT to a cancelled run that still posts its partial report. core.setFailed is called
 * here and nowhere else.
 */
import * as core from '@actions/core';
import { createSecretMasker } from '../log/secret-masker.js';
import { secretValues } from '../util/child-env.js';
import { errorMessage } from '../util/errors.js';
import { isFailure, runAction } from './run-action.js';
import { createWorkflowCommands } from './workflow-commands.js';

export async function run(): Promise<void> {
  // The run's one masker, for everything it writes, sends and commits (RunActionOptions.masker).
  const masker = createSecretMasker(secretValues(process.env));
  const commands = createWorkflowCommands({ masker });
  const controller = new AbortController();
  const stop = (signal: string) => controller.abort(new Error(`received ${signal}`));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  try {
    const outcome = await runAction(process.env, { signal: controller.signal, masker, commands });
    if (isFailure(outcome))
      core.setFailed(masker.mask(`ci-agent: ${outcome.conclusion}: ${outcome.headline}`));
  } catch (error) {
    core.setFailed(masker.mask(`ci-agent: ${errorMessage(error)}`));
  }
}
