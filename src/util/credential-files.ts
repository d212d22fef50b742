/**
 * Where a model provider's credentials lie in files: the files the environment names
 * (GOOGLE_APPLICATION_CREDENTIALS and its kin), and the `gha-creds-*.json` that
 * google-github-actions/auth writes into the workspace by default, named or not. No tool may
 * read them (permissions/floors.ts, through credential-files.ts there), the sandbox hides them
 * (sandbox/mount-plan.ts), and the action's commit leaves them out (github/git.ts).
 */
import { readdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** The variables that name a file holding credentials. */
export const CREDENTIAL_FILE_VARIABLES: readonly string[] = [
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GOOGLE_GHA_CREDS_PATH',
  'CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE',
  'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
];

/** The name google-github-actions/auth gives the credentials file it writes. */
export const GHA_CREDENTIALS_FILE = /^gha-creds-[A-Za-z0-9_-]+\.json$/;

/**
 * The credential files, as absolute paths (a relative one from `cwd`), not resolved through
 * links; a `gha-creds-*.json` counts when it is directly in one of `roots` now.
 */
export function findCredentialFiles(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  roots: readonly string[],
): string[] {
  const named = CREDENTIAL_FILE_VARIABLES.map((name) => env[name]?.trim() ?? '')
    .filter((path) => path !== '')
    .map((path) => (isAbsolute(path) ? resolve(path) : resolve(cwd, path)));
  return [...new Set([...named, ...roots.flatMap(ghaCredentialFiles)])];
}

function ghaCredentialFiles(root: string): string[] {
  try {
    return readdirSync(root)
      .filter((name) => GHA_CREDENTIALS_FILE.test(name))
      .map((name) => join(root, name));
  } catch {
    return [];
  }
}
