/**
 * Where a fake repository's branches live: in its bare `origin` repository when it has one (so a
 * branch the action pushed with git exists for `POST /pulls` at once), otherwise in the state's
 * `branches` map.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import type { FakeRepo } from './state.js';

const run = promisify(execFile);
const ZERO_SHA = '0'.repeat(40);

export type CreateRefResult = 'created' | 'exists' | 'missing-object';

export interface BranchStore {
  /** Full ref name (`refs/heads/main`) → commit sha. */
  refs(): Promise<Map<string, string>>;
  createRef(ref: string, sha: string): Promise<CreateRefResult>;
  /** Commits on `head` that `base` lacks; `undefined` when the store cannot tell. */
  commitsAhead(base: string, head: string): Promise<number | undefined>;
}

export function branchStoreFor(repo: FakeRepo): BranchStore {
  return repo.origin === undefined ? memoryStore(repo) : gitStore(repo.origin);
}

/** A stable made-up sha for a branch seeded without one. */
export function placeholderSha(repo: string, branch: string): string {
  return createHash('sha1').update(`${repo.toLowerCase()}:${branch}`).digest('hex');
}

function memoryStore(repo: FakeRepo): BranchStore {
  if (Object.keys(repo.branches).length === 0) {
    repo.branches[repo.defaultBranch] = placeholderSha(
      `${repo.owner}/${repo.name}`,
      repo.defaultBranch,
    );
  }
  return {
    async refs() {
      return new Map(
        Object.entries(repo.branches).map(([branch, sha]) => [`refs/heads/${branch}`, sha]),
      );
    },
    async createRef(ref, sha) {
      const branch = ref.replace(/^refs\/heads\//, '');
      if (branch === ref) return 'missing-object';
      if (Object.hasOwn(repo.branches, branch)) return 'exists';
      repo.branches[branch] = sha;
      return 'created';
    },
    async commitsAhead(base, head) {
      const baseSha = repo.branches[base];
      const headSha = repo.branches[head];
      return baseSha !== undefined && baseSha === headSha ? 0 : undefined;
    },
  };
}

function gitStore(directory: string): BranchStore {
  const git = async (...args: string[]): Promise<string> =>
    (await run('git', ['--git-dir', directory, ...args], { encoding: 'utf8' })).stdout;
  return {
    async refs() {
      const out = await git(
        'for-each-ref',
        '--format=%(refname) %(objectname)',
        'refs/heads',
        'refs/tags',
      );
      const refs = new Map<string, string>();
      for (const line of out.split('\n')) {
        const [name, sha] = line.split(' ');
        if (name && sha) refs.set(name, sha);
      }
      return refs;
    },
    async createRef(ref, sha) {
      try {
        await git('cat-file', '-e', `${sha}^{commit}`);
      } catch {
        return 'missing-object';
      }
      try {
        // The zero old-value makes git refuse when the ref already exists.
        await git('update-ref', ref, sha, ZERO_SHA);
        return 'created';
      } catch {
        return 'exists';
      }
    },
    async commitsAhead(base, head) {
      try {
        const out = await git('rev-list', '--count', `refs/heads/${base}..refs/heads/${head}`);
        return Number.parseInt(out.trim(), 10);
      } catch {
        return undefined;
      }
    },
  };
}
