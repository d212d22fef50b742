/**
 * The project's CI workflow, checked here because nothing checks it offline (actionlint is not
 * available) and a broken workflow is only found on GitHub, after the push: the YAML parses, every
 * job's steps are well formed, every shell script parses, the self-test job runs the action from the
 * checkout with inputs the action declares and a script that exists, and one test run has ripgrep
 * hidden from the PATH.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execaSync } from 'execa';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { INPUT_NAMES } from '../../src/github/inputs.js';
import { apparmorProfile } from '../../src/sandbox/host-setup.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const stepSchema = z
  .object({
    name: z.string().optional(),
    id: z.string().optional(),
    if: z.string().optional(),
    uses: z.string().optional(),
    run: z.string().optional(),
    with: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    env: z.record(z.string(), z.string()).optional(),
  })
  .strict()
  .refine((step) => (step.uses === undefined) !== (step.run === undefined), {
    message: 'a step has exactly one of uses and run',
  });
type Step = z.infer<typeof stepSchema>;

const workflowSchema = z.object({
  name: z.string(),
  on: z.record(z.string(), z.unknown()),
  permissions: z.record(z.string(), z.enum(['read', 'write', 'none'])),
  jobs: z.record(
    z.string(),
    z
      .object({
        name: z.string().optional(),
        if: z.string().optional(),
        'runs-on': z.string(),
        container: z
          .union([z.string(), z.object({ image: z.string(), options: z.string() }).strict()])
          .optional(),
        permissions: z.record(z.string(), z.enum(['read', 'write', 'none'])).optional(),
        strategy: z
          .object({
            'fail-fast': z.boolean().optional(),
            matrix: z.union([
              z.object({ include: z.array(z.record(z.string(), z.string())) }).strict(),
              z.object({ os: z.array(z.string()).min(1) }).strict(),
            ]),
          })
          .optional(),
        steps: z.array(stepSchema).min(1),
      })
      .strict(),
  ),
});

const workflow = workflowSchema.parse(
  parse(readFileSync(`${ROOT}.github/workflows/ci.yml`, 'utf8')),
);
const job = (name: string) => {
  const found = workflow.jobs[name];
  if (!found) throw new Error(`.github/workflows/ci.yml: no job "${name}"`);
  return found;
};
const allSteps: Array<[string, Step]> = Object.entries(workflow.jobs).flatMap(([name, { steps }]) =>
  steps.map((step): [string, Step] => [name, step]),
);

describe('.github/workflows/ci.yml', () => {
  it('gives every shell script that bash parses', () => {
    for (const [name, step] of allSteps) {
      if (step.run === undefined) continue;
      // ${{ … }} is replaced before the shell sees the script; a word stands in for it.
      const script = step.run.replace(/\$\{\{[^}]*\}\}/g, 'EXPR');
      expect(
        () => execaSync('bash', ['-n'], { input: script }),
        `job ${name}, step ${step.name ?? step.run}`,
      ).not.toThrow();
    }
  });

  it('pins every action it uses to a major version, or uses the checkout', () => {
    for (const [, step] of allSteps) {
      if (step.uses === undefined) continue;
      expect(step.uses).toMatch(/^(?:\.\/|[\w-]+\/[\w-]+@v\d+)$/);
    }
  });

  it('takes Node from .node-version wherever it sets Node up', () => {
    const setups = allSteps.filter(([, step]) => step.uses?.startsWith('actions/setup-node@'));
    expect(setups.length).toBeGreaterThan(0);
    for (const [, step] of setups) expect(step.with?.['node-version-file']).toBe('.node-version');
    expect(readFileSync(`${ROOT}.node-version`, 'utf8').trim()).toBe('24');
  });

  describe('the action job', () => {
    const steps = job('action').steps;
    const action = steps.find((step) => step.uses === './');

    it('runs the action from the checkout', () => {
      expect(action).toBeDefined();
    });

    it('passes only inputs that action.yml declares', () => {
      for (const input of Object.keys(action?.with ?? {})) expect(INPUT_NAMES).toContain(input);
    });

    it('starts the recorded model before the action and checks its requests after', () => {
      const index = steps.indexOf(action!);
      const before = steps.slice(0, index).map((step) => step.run ?? '');
      const after = steps.slice(index + 1).map((step) => step.run ?? '');
      expect(before.join('\n')).toContain('scripts/self-test-model.ts serve');
      expect(before.join('\n')).toContain('ANTHROPIC_BASE_URL=');
      expect(after.join('\n')).toContain('scripts/self-test-model.ts check');
      expect(existsSync(`${ROOT}scripts/self-test-model.ts`)).toBe(true);
    });
  });

  describe('the test job', () => {
    const test = job('test');
    const matrix = test.strategy?.matrix;
    const entries = matrix && 'include' in matrix ? matrix.include : [];

    it('runs once with ripgrep installed and once with it hidden from the PATH', () => {
      expect(entries.map((entry) => entry['ripgrep'])).toEqual(['with', 'without']);
      expect(entries[0]?.['packages']).toContain('ripgrep');
      expect(entries[1]?.['packages']).not.toContain('ripgrep');
      const hide = test.steps.find((step) => step.if === "matrix.ripgrep == 'without'");
      expect(hide?.run).toContain('command -v rg');
    });

    it('runs the test script package.json defines', () => {
      const scripts = Object.keys(
        (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: object }).scripts,
      );
      for (const entry of entries) expect(scripts).toContain(entry['script']);
    });

    it('installs what the sandbox needs, and lets the container make namespaces', () => {
      for (const entry of entries) expect(entry['packages']).toContain('bubblewrap');
      const container = test.container;
      expect(typeof container === 'object' && container.options).toContain('seccomp=unconfined');
    });
  });

  describe('the dist job', () => {
    it('fails on a stale dist/ and on inputs docs that are not what action.yml says', () => {
      const runs = job('dist').steps.map((step) => step.run ?? '');
      expect(runs).toContain('npm run docs:inputs -- --check');
      expect(runs.join('\n')).toContain('git status --porcelain -- dist');
      expect(
        (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: object }).scripts,
      ).toHaveProperty('docs:inputs');
    });
  });

  describe('the sandbox jobs', () => {
    it('run the action and the boundary suite on both hosted Ubuntu images', () => {
      for (const name of ['action', 'sandbox']) {
        const matrix = job(name).strategy?.matrix;
        expect(matrix && 'os' in matrix ? matrix.os : [], name).toEqual([
          'ubuntu-24.04',
          'ubuntu-22.04',
        ]);
        expect(job(name)['runs-on']).toBe('${{ matrix.os }}');
      }
      const boundary = job('sandbox')
        .steps.map((step) => step.run ?? '')
        .join('\n');
      expect(boundary).toContain('apparmor_parser -r /etc/apparmor.d/ci-agent-bwrap');
      expect(boundary).toContain('__tests__/sandbox');
      // The profile the job loads is the one the action loads on a hosted runner.
      const printed = /printf '([^']*)'/.exec(boundary)?.[1]?.replaceAll('\\n', '\n');
      expect(printed).toBe(apparmorProfile('/usr/bin/bwrap'));
    });
  });
});
