import type { HandlerContext } from '../http.js';
import { notFound } from '../http.js';
import type { FakeRepo } from '../state.js';
import { fullName } from '../state.js';

/** The repository named by `{owner}/{repo}`; GitHub answers 404 for one it does not know. */
export function repoOf(context: HandlerContext): { repo: FakeRepo; name: string } {
  const name = `${context.params['owner'] ?? ''}/${context.params['repo'] ?? ''}`;
  const repo = context.store.repo(name);
  if (repo === undefined) throw notFound();
  return { repo, name: fullName(repo) };
}
