/**
 * Files the policy's Read deny rules hide from Glob and Grep (ToolContext.isReadDenied;
 * docs/CC-COMPAT.md §2.4). The tools leave them out and say how many, so that the model knows a search
 * was narrowed and does not conclude the files are absent.
 */

export type ReadDenied = (absolutePath: string) => boolean;

/** The paths the rules let through, and how many they hid. */
export function withoutHidden(
  paths: readonly string[],
  isReadDenied: ReadDenied | undefined,
): { visible: string[]; hidden: number } {
  if (!isReadDenied) return { visible: [...paths], hidden: 0 };
  const visible = paths.filter((path) => !isReadDenied(path));
  return { visible, hidden: paths.length - visible.length };
}

export function hiddenNote(hidden: number): string {
  return `(${hidden} ${hidden === 1 ? 'file' : 'files'} hidden by permission rules)`;
}
