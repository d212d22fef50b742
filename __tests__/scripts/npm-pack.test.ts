/**
 * The CLI as npm ships it (issue 15, part 5): `npm pack` of the repository holds the CLI bundle
 * and what it needs (dist/cli/, the bundled packages' licenses, the README, the license) and
 * nothing else — not the action, the demo, the sources or the tests; the CLI's chunks never
 * reach outside dist/cli/; and the tarball installs with npm from a temp directory, offline and
 * with an empty cache (it has no dependencies: everything is bundled), and runs `ci-agent
 * --version`, which says package.json's version.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CI_AGENT_VERSION } from '../../src/cli/render.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  name: string;
  version: string;
  private?: boolean;
  bin: Record<string, string>;
  dependencies?: Record<string, string>;
  publishConfig?: { access?: string };
};

let temp: string;
let tarball: string;
let packed: string[];

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'ci-agent-npm-pack-'));
  const pack = await execa(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', temp],
    { cwd: ROOT, env: { npm_config_cache: join(temp, 'pack-cache') } },
  );
  const [result] = JSON.parse(pack.stdout) as Array<{
    filename: string;
    files: { path: string }[];
  }>;
  tarball = join(temp, result!.filename);
  packed = result!.files.map((file) => file.path).sort();
}, 120_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('the npm package', () => {
  it('is published under a scoped name, publicly, with the ci-agent command', () => {
    expect(manifest.name).toBe('@ci-agent/cli');
    expect(manifest.private).toBeUndefined();
    expect(manifest.publishConfig?.access).toBe('public');
    expect(manifest.bin).toEqual({ 'ci-agent': 'dist/cli/index.js' });
  });

  it('depends on nothing: the CLI bundle carries its libraries', () => {
    expect(manifest.dependencies).toBeUndefined();
  });

  it('holds the CLI bundle and what it needs, and nothing else', () => {
    // The provider SDKs' bundles sit in folders of their own (dist/cli/bedrock-sdk/…).
    const cli = readdirSync(`${ROOT}dist/cli`, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => `${entry.parentPath.slice(ROOT.length)}/${entry.name}`);
    expect(packed).toEqual(
      [...cli, 'dist/licenses.txt', 'LICENSE', 'README.md', 'package.json'].sort(),
    );
  });

  it('has CLI chunks that load nothing from outside dist/cli/', () => {
    for (const path of packed.filter((file) => file.startsWith('dist/cli/'))) {
      const text = readFileSync(`${ROOT}${path}`, 'utf8');
      expect(text, path).not.toMatch(/(?:from|import\()\s*['"]\.\.\//);
    }
  });

  it('says the package version as ci-agent --version', () => {
    expect(CI_AGENT_VERSION).toBe(manifest.version);
  });

  it('installs from the tarball offline, with an empty cache, and runs', async () => {
    const project = join(temp, 'project');
    const cache = join(temp, 'empty-cache');
    await execa('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), '{ "name": "user-project", "private": true }\n');
    await execa(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
      { cwd: project, env: { npm_config_cache: cache } },
    );
    const version = await execa(join(project, 'node_modules/.bin/ci-agent'), ['--version'], {
      cwd: project,
    });
    expect(version.stdout.trim()).toBe(manifest.version);
    const help = await execa(join(project, 'node_modules/.bin/ci-agent'), ['--help'], {
      cwd: project,
    });
    expect(help.stdout).toContain('--output-format');
  }, 120_000);
});
