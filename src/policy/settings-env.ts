/**
 * A settings file's `env`: variables for tools and hooks (Claude Code applies them to its own
 * process, and so to everything it starts). A name the settings may not set (util/settings-env.ts)
 * is dropped with a warning naming the file and the variable; so is a value that is not a string
 * or a name no shell could export. Dropping is never looser: the variable keeps the runner's value.
 *
 * The model connection's variables (model/provider-variables.ts: CLAUDE_CODE_USE_BEDROCK,
 * AWS_REGION, ANTHROPIC_MODEL, …) go aside instead, for the CLI's model client, never to tools.
 * A file in the repository (`project`, `local`) may not set credentials or endpoints there.
 */
import { isModelConnectionVariable, OPERATOR_ONLY_VARIABLES } from '../model/provider-variables.js';
import { settingsEnvRefusal } from '../util/settings-env.js';
import type { Findings } from './findings.js';
import { isPlainObject } from './findings.js';
import type { SourceKind } from './types.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface SettingsEnv {
  /** For tools and hooks. */
  env: Record<string, string>;
  /** For the model connection (the CLI's). */
  modelEnv: Record<string, string>;
}

export function readSettingsEnv(env: unknown, findings: Findings, kind: SourceKind): SettingsEnv {
  const accepted: Record<string, string> = {};
  const modelEnv: Record<string, string> = {};
  if (!isPlainObject(env)) {
    findings.warn(['env'], 'expected an object of variable names and string values; ignored');
    return { env: accepted, modelEnv };
  }
  for (const [name, value] of Object.entries(env)) {
    const path = ['env', name];
    if (!NAME.test(name)) {
      findings.warn(
        path,
        'not a variable name (letters, digits and _, not first a digit); ignored',
        true,
      );
      continue;
    }
    if (isModelConnectionVariable(name)) {
      if (typeof value !== 'string' || value.includes('\0')) {
        findings.warn(path, `expected a string without NUL bytes for ${name}; ignored`);
      } else if (
        (kind === 'project' || kind === 'local') &&
        OPERATOR_ONLY_VARIABLES.includes(name)
      ) {
        findings.warn(
          path,
          `${name} is not taken from a file in the repository: it is a credential or says where the model's requests go; set it in the environment, ~/.claude/settings.json or --settings; ignored`,
          true,
        );
      } else {
        modelEnv[name] = value;
      }
      continue;
    }
    const refusal = settingsEnvRefusal(name);
    if (refusal !== undefined) {
      findings.warn(path, `${name} is not passed to tools and hooks: ${refusal}; ignored`, true);
      continue;
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      findings.warn(path, `expected a string without NUL bytes for ${name}; ignored`);
      continue;
    }
    accepted[name] = value;
  }
  return { env: accepted, modelEnv };
}
