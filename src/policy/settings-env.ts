/**
 * A settings file's `env`: variables for tools and hooks (Claude Code applies them to its own
 * process, and so to everything it starts). A name the settings may not set (util/settings-env.ts)
 * is dropped with a warning naming the file and the variable; so is a value that is not a string
 * or a name no shell could export. Dropping is never looser: the variable keeps the runner's value.
 */
import { settingsEnvRefusal } from '../util/settings-env.js';
import type { Findings } from './findings.js';
import { isPlainObject } from './findings.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function readSettingsEnv(env: unknown, findings: Findings): Record<string, string> {
  const accepted: Record<string, string> = {};
  if (!isPlainObject(env)) {
    findings.warn(['env'], 'expected an object of variable names and string values; ignored');
    return accepted;
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
  return accepted;
}
