/**
 * The action's single failure point: runs the action, turns its outcome into the step's status
 * (an honest conclusion: failed, denied, limit, no changes and cancelled fail the step), and maps
 * SIGTERM/SIGINT to a cancelled run that still posts its partial report.
 */
import { errorMessage } from '../util/errors.js';
import { isFailure, runAction } from './run-action.js';
import { createWorkflowCommands } from './workflow-commands.js';

export async function run(): Promise<void> {
  const commands = createWorkflowCommands();
  const controller = new AbortController();
  const stop = (signal: string) => controller.abort(new Error(`received ${signal}`));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  try {
    const outcome = await runAction(process.env, controller.signal, commands);
    if (isFailure(outcome))
      commands.setFailed(`ci-agent: ${outcome.conclusion}: ${outcome.headline}`);
  } catch (error) {
    commands.setFailed(`ci-agent: ${errorMessage(error)}`);
  }
}
