/**
 * The release workflow (issue 15, part 5), checked here because a broken one is only found on
 * GitHub, after a tag is pushed: its shape (a tag vX.Y.Z, the tests first, the checks before
 * anything moves, the permissions each step needs), and its scripts run for real: the version
 * check against a package.json and CHANGELOG, the dist check in a git checkout, the major tag
 * moved in a clone of a bare origin, and the npm publish step against a stand-in `npm` on the
 * PATH. Also: the examples, README and docs reference the action as the release publishes it.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, execaSync } from 'execa';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const stepSchema = z
  .object({
    name: z.string().optional(),
    if: z.string().optional(),
    uses: z.string().optional(),
    run: z.string().optional(),
    with: z.record(z.string(), z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
  })
  .strict()
  .refine((step) => (step.uses === undefined) !== (step.run === undefined), {
    message: 'a step has exactly one of uses and run',
  });
type Step = z.infer<typeof stepSchema>;
const permissions = z.record(z.string(), z.enum(['read', 'write', 'none']));
const workflow = z
  .object({
    name: z.string(),
    on: z.object({ push: z.object({ tags: z.array(z.string()) }).strict() }).strict(),
    permissions,
    jobs: z.record(
      z.string(),
      z
        .object({
          name: z.string().optional(),
          needs: z.string().optional(),
          'runs-on': z.string(),
          container: z.object({ image: z.string(), options: z.string() }).strict().optional(),
          permissions: permissions.optional(),
          steps: z.array(stepSchema).min(1),
        })
        .strict(),
    ),
  })
  .parse(parse(readFileSync(`${ROOT}.github/workflows/release.yml`, 'utf8')));

const job = (name: string) => {
  const found = workflow.jobs[name];
  if (!found) throw new Error(`.github/workflows/release.yml: no job "${name}"`);
  return found;
};
const release = job('release');
const stepNamed = (name: string): Step => {
  const step = release.steps.find((candidate) => candidate.name === name);
  if (!step?.run) throw new Error(`release job: no run step "${name}"`);
  return step;
};
const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  repository: { url: string };
};

const temps: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ci-agent-release-'));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A step's script as the runner runs it: bash -e, in `cwd`, with the runner's variables. */
function runStep(step: Step, cwd: string, env: Record<string, string>) {
  return execa('bash', ['-e', '-c', step.run!], {
    cwd,
    env: { ...process.env, ...env },
    reject: false,
  });
}

function git(cwd: string, ...args: string[]): string {
  return execaSync('git', args, {
    cwd,
    env: {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  }).stdout.trim();
}

describe('.github/workflows/release.yml', () => {
  const allSteps = Object.values(workflow.jobs).flatMap((each) => each.steps);

  it('runs on a pushed tag vX.Y.Z only, reading by default', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
    expect(workflow.permissions).toEqual({ contents: 'read' });
  });

  it('gives every shell script that bash parses, and pins every action to a major version', () => {
    for (const step of allSteps) {
      if (step.uses !== undefined) expect(step.uses).toMatch(/^[\w-]+\/[\w-]+@v\d+$/);
      if (step.run === undefined) continue;
      const script = step.run.replace(/\$\{\{[^}]*\}\}/g, 'EXPR');
      expect(() => execaSync('bash', ['-n'], { input: script }), step.name).not.toThrow();
    }
    for (const step of allSteps.filter((each) => each.uses?.startsWith('actions/setup-node@'))) {
      expect(step.with?.['node-version-file']).toBe('.node-version');
    }
  });

  it('runs the whole test suite first, and releases only after it passed', () => {
    const runs = job('test').steps.map((step) => step.run ?? '');
    expect(runs.indexOf('npm ci --no-audit --no-fund')).toBeLessThan(runs.indexOf('npm test'));
    expect(runs.indexOf('npm test')).toBeGreaterThan(-1);
    expect(manifest.scripts.test).toContain('vitest run');
    expect(release.needs).toBe('test');
  });

  it('checks the version, builds and checks dist/ before it moves a tag or publishes', () => {
    const order = [
      "The tag is package.json's version",
      'npm run build',
      "dist/ is what the tag's sources build",
      "The CLI says the tag's version",
      'Move the major tag to this release',
      'Publish the CLI to npm',
    ].map((name) => release.steps.findIndex((step) => step.name === name || step.run === name));
    expect(
      order.every((index) => index >= 0),
      order.join(),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(release.permissions).toEqual({ contents: 'write', 'id-token': 'write' });
    const setup = release.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(setup?.with?.['registry-url']).toBe('https://registry.npmjs.org');
  });

  describe('the version check', () => {
    const step = stepNamed("The tag is package.json's version");
    const project = async (version: string, changelog: string) => {
      const dir = temp();
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ version }));
      writeFileSync(join(dir, 'CHANGELOG.md'), changelog);
      return dir;
    };

    it('passes for the tag of package.json’s version with a CHANGELOG section', async () => {
      const dir = await project('1.2.3', '# Changelog\n\n## [1.2.3] - 2026-12-02\n');
      expect((await runStep(step, dir, { GITHUB_REF_NAME: 'v1.2.3' })).exitCode).toBe(0);
    });

    it('fails, saying why, for another version or a release the CHANGELOG does not name', async () => {
      const mismatch = await runStep(step, await project('1.2.4', '## [1.2.3]\n'), {
        GITHUB_REF_NAME: 'v1.2.3',
      });
      expect(mismatch.exitCode).toBe(1);
      expect(mismatch.stdout).toContain(
        "::error::tag v1.2.3 does not match package.json's version 1.2.4",
      );
      const unlisted = await runStep(step, await project('1.2.3', '## [Unreleased]\n'), {
        GITHUB_REF_NAME: 'v1.2.3',
      });
      expect(unlisted.exitCode).toBe(1);
      expect(unlisted.stdout).toContain("::error::CHANGELOG.md has no section '## [1.2.3]'");
    });
  });

  describe('the dist check', () => {
    const step = stepNamed("dist/ is what the tag's sources build");

    it('fails when the build changed a committed file or added one, and passes when it did not', async () => {
      const dir = temp();
      await mkdir(join(dir, 'dist'));
      git(dir, 'init', '-q');
      writeFileSync(join(dir, 'dist/index.js'), 'built\n');
      git(dir, 'add', '.');
      git(dir, 'commit', '-q', '-m', 'release');
      expect((await runStep(step, dir, {})).exitCode).toBe(0);
      writeFileSync(join(dir, 'dist/index.js'), 'built differently\n');
      const changed = await runStep(step, dir, {});
      expect(changed.exitCode).toBe(1);
      expect(changed.stdout).toContain('::error::the tagged dist/ is not what a fresh build makes');
      git(dir, 'checkout', '--', 'dist');
      writeFileSync(join(dir, 'dist/9.index.js'), 'a new chunk\n');
      expect((await runStep(step, dir, {})).exitCode).toBe(1);
    });
  });

  describe('the major tag', () => {
    const step = stepNamed('Move the major tag to this release');

    it('points vX at each release of X in the origin, and leaves it for a pre-release', async () => {
      const origin = temp();
      git(origin, 'init', '-q', '--bare');
      const clone = temp();
      git(clone, 'clone', '-q', origin, '.');
      const releaseAt = async (tag: string) => {
        git(clone, 'commit', '-q', '--allow-empty', '-m', tag);
        const sha = git(clone, 'rev-parse', 'HEAD');
        git(clone, 'tag', tag);
        git(clone, 'push', '-q', 'origin', 'HEAD:refs/heads/main', `refs/tags/${tag}`);
        const run = await runStep(step, clone, {
          GITHUB_REF_NAME: tag,
          GITHUB_SHA: sha,
          GIT_CONFIG_GLOBAL: '/dev/null',
        });
        expect(run.exitCode, run.stderr).toBe(0);
        return sha;
      };
      const tagAt = (name: string) =>
        execaSync('git', ['rev-parse', '--verify', '-q', `refs/tags/${name}^{commit}`], {
          cwd: origin,
          reject: false,
        }).stdout.trim();

      const first = await releaseAt('v1.2.3');
      expect(tagAt('v1')).toBe(first);
      const second = await releaseAt('v1.3.0');
      expect(tagAt('v1')).toBe(second);
      await releaseAt('v2.0.0-rc.1');
      expect(tagAt('v2')).toBe('');
      expect(tagAt('v1')).toBe(second);
    });
  });

  describe('publishing the CLI', () => {
    const step = stepNamed('Publish the CLI to npm');

    it('takes the npm token from the NPM_TOKEN secret and publishes with provenance', () => {
      expect(step.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' });
      expect(step.run).toContain('npm publish --provenance --access public');
    });

    const withFakeNpm = async (env: Record<string, string>) => {
      const dir = temp();
      await mkdir(join(dir, 'bin'));
      const log = join(dir, 'npm-calls');
      writeFileSync(join(dir, 'bin/npm'), `#!/bin/sh\necho "$@" >> '${log}'\n`);
      chmodSync(join(dir, 'bin/npm'), 0o755);
      const run = await runStep(step, dir, { PATH: `${dir}/bin:${process.env.PATH}`, ...env });
      let calls = '';
      try {
        calls = readFileSync(log, 'utf8');
      } catch {
        // no call
      }
      return { run, calls };
    };

    it('skips, and says so, without a token', async () => {
      const { run, calls } = await withFakeNpm({ NODE_AUTH_TOKEN: '', GITHUB_REF_NAME: 'v1.2.3' });
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain(
        '::notice::no NPM_TOKEN secret: @ci-agent/cli was not published',
      );
      expect(calls).toBe('');
    });

    it('publishes a release as latest and a pre-release as next', async () => {
      const latest = await withFakeNpm({ NODE_AUTH_TOKEN: 'x', GITHUB_REF_NAME: 'v1.2.3' });
      expect(latest.calls).toBe('publish --provenance --access public --tag latest\n');
      const next = await withFakeNpm({ NODE_AUTH_TOKEN: 'x', GITHUB_REF_NAME: 'v1.3.0-rc.1' });
      expect(next.calls).toBe('publish --provenance --access public --tag next\n');
    });
  });
});

describe('how users reference the action', () => {
  const major = `v${manifest.version.split('.')[0]}`;
  const reference = `ci-agent/ci-agent@${major}`;

  it('is the repository package.json names, at the major tag the release moves', () => {
    expect(manifest.repository.url).toBe('git+https://github.com/ci-agent/ci-agent.git');
  });

  it.each([
    'examples/issue-label.yml',
    'examples/failing-tests.yml',
    'examples/audit-artifact.yml',
  ])('in %s', (path) => {
    const uses = [...readFileSync(`${ROOT}${path}`, 'utf8').matchAll(/uses: (\S*ci-agent\S*)/g)];
    expect(uses.map((match) => match[1])).toEqual([reference]);
  });

  it.each(['README.md', 'docs/INPUTS.md'])('in %s', (path) => {
    const text = readFileSync(`${ROOT}${path}`, 'utf8');
    expect(text).toContain(`uses: ${reference}`);
    expect(text).not.toMatch(/ci-agent\/ci-agent@(?!v\d)/);
  });
});
