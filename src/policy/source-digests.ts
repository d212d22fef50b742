/**
 * The policy in force, as digests: one SHA-256 per source text the loader parsed, in the order
 * of `LoadedPolicy.sources` (highest precedence first). The tool log records them on its
 * `system/init` line; `ci-agent replay` compares them with the checkout's to say whether the
 * policy it replays under is the recorded one.
 */
import { createHash } from 'node:crypto';
import type { LoadedPolicy, SourceDigest, SourceText } from './types.js';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The policy with the digest of each of its sources. Two `--settings` JSON values share the
 * path `--settings`: they are matched to the sources in the order they were given.
 */
export function withSourceDigests(
  policy: LoadedPolicy,
  texts: readonly Pick<SourceText, 'path' | 'kind' | 'text'>[],
): LoadedPolicy {
  const pending = [...texts];
  const sourceDigests: SourceDigest[] = [];
  for (const source of policy.sources) {
    const index = pending.findIndex(
      (text) => text.path === source.path && text.kind === source.kind,
    );
    if (index === -1) continue;
    const [text] = pending.splice(index, 1);
    sourceDigests.push(Object.freeze({ ...source, sha256: sha256Hex(text!.text) }));
  }
  return Object.freeze({ ...policy, sourceDigests: Object.freeze(sourceDigests) });
}
