/** Node file-system errors, told apart by their `code`. */

export function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** ENOTDIR counts as missing: a path through a regular file names nothing. */
export function isNotFound(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
