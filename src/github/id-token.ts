/**
 * The job's OpenID Connect token, for a model provider that trusts GitHub's identity (a later
 * issue's provider work: e.g. a cloud role assumed with the token instead of a stored key).
 *
 * A thin accessor for core.getIDToken: it asks ACTIONS_ID_TOKEN_REQUEST_URL (with `&audience=…`
 * when given) with ACTIONS_ID_TOKEN_REQUEST_TOKEN as the bearer, and answers the `value` of the
 * JSON reply. The runner sets both variables only when the workflow grants `id-token: write`.
 * core registers the token with the runner's masker (`add-mask`); a caller that writes it
 * anywhere else adds it to its own SecretMasker.
 *
 * `env` as runAction's: core reads both variables in the call's synchronous start.
 */
import * as core from '@actions/core';
import { withRunnerEnv } from './runner-env.js';

export function idToken(
  audience?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string> {
  return withRunnerEnv(env, () => core.getIDToken(audience));
}
