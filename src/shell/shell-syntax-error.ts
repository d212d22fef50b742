/** A command outside the shell subset the parser models; callers treat it as unknown. */
export class ShellSyntaxError extends Error {
  override name = 'ShellSyntaxError';
}
