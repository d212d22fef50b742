/**
 * Bash limits (docs/CC-COMPAT.md §3 Bash), overridable through the environment the session gives tools:
 * BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS (never below the default) and
 * BASH_MAX_OUTPUT_LENGTH (capped at 150 000).
 */
export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_OUTPUT_LENGTH = 30_000;
const OUTPUT_LENGTH_CAP = 150_000;

export interface BashLimits {
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  /** Characters of each stream given to the model. */
  maxOutputLength: number;
}

export function readBashLimits(env: Readonly<Record<string, string>>): BashLimits {
  const defaultTimeoutMs =
    readPositiveInteger(env, 'BASH_DEFAULT_TIMEOUT_MS') ?? DEFAULT_TIMEOUT_MS;
  const maxTimeoutMs = Math.max(
    readPositiveInteger(env, 'BASH_MAX_TIMEOUT_MS') ?? MAX_TIMEOUT_MS,
    defaultTimeoutMs,
  );
  const maxOutputLength = Math.min(
    readPositiveInteger(env, 'BASH_MAX_OUTPUT_LENGTH') ?? DEFAULT_MAX_OUTPUT_LENGTH,
    OUTPUT_LENGTH_CAP,
  );
  return { defaultTimeoutMs, maxTimeoutMs, maxOutputLength };
}

/** The timeout a call runs with: the model's request within the maximum, else the default. */
export function effectiveTimeoutMs(requested: number | undefined, limits: BashLimits): number {
  if (requested === undefined) return limits.defaultTimeoutMs;
  return Math.min(Math.ceil(requested), limits.maxTimeoutMs);
}

function readPositiveInteger(
  env: Readonly<Record<string, string>>,
  name: string,
): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(
      `${name} must be a positive whole number of ${name.endsWith('_MS') ? 'milliseconds' : 'characters'}, got "${raw}"`,
    );
  }
  return value;
}
