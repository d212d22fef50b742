/**
 * The model provider's credential files (floors.ts, 2b): the files the environment names
 * (util/child-env.ts `credentialFilePaths`: GOOGLE_APPLICATION_CREDENTIALS and its kin) and the
 * `gha-creds-*.json` found directly in a workspace root at start, where google-github-actions/auth
 * writes its file by default, named in the environment or not. Pure: the caller finds and
 * resolves the paths (as given and through links: a tool may name the file either way).
 */
export function credentialFilePredicate(
  files: readonly string[],
): ((path: string) => boolean) | undefined {
  if (files.length === 0) return undefined;
  const named = new Set(files);
  return (path) => named.has(path);
}
