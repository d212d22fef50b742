/**
 * scripts/ncc-bundle.mjs, the build behind dist/: a TypeScript entry with a top-level await and a
 * dynamic import becomes an ES module bundle and a chunk loaded on demand, `replace` swaps a
 * compiled module, and two builds of the same tree are the same bytes (CI compares dist/ with a
 * fresh build). Also the chunks the CLI and the demo share with the action, and the licenses.
 */
import { execaSync } from 'execa';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { licenses, nccBundle, shareChunks } from '../../scripts/ncc-bundle.mjs';

const FIXTURE = '__tests__/scripts/__fixtures__/ncc-bundle';
const temps: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ci-agent-ncc-bundle-'));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What webpack's chunk loader reads from a chunk's namespace. */
interface Chunk {
  ids: number[];
  modules: object;
}

const bytesOf = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));

describe('nccBundle', () => {
  it('bundles an entry and its lazy part into a chunk, replaces modules, and builds the same bytes twice', async () => {
    const [first, second] = [temp(), temp()];
    for (const out of [first, second]) {
      await nccBundle({
        workDir: '.build-tmp/test-ncc-bundle',
        sources: [FIXTURE],
        replace: {
          [`${FIXTURE}/greeting.ts`]: async () =>
            "export const greeting = () => 'replaced at build';\n",
        },
        builds: [{ entry: `${FIXTURE}/entry.ts`, out }],
      });
    }
    const files = bytesOf(first);
    const chunks = Object.keys(files).filter((name) => /^\d+\.index\.js$/.test(name));
    expect(chunks).toHaveLength(1);
    // The lazy part is in the chunk, not the entry: it loads only when the import() runs.
    expect(files[chunks[0]!]).toContain('toUpperCase');
    expect(files['index.js']).not.toContain('toUpperCase');
    expect(bytesOf(second)).toEqual(files);
    const stdout = execaSync(process.execPath, [join(first, 'index.js')], {
      stripFinalNewline: false,
    }).stdout;
    expect(stdout).toBe('REPLACED AT BUILD!\n');
  }, 120_000);

  it('refuses a work directory outside the project', async () => {
    await expect(
      nccBundle({ workDir: '../elsewhere', sources: [FIXTURE], builds: [] }),
    ).rejects.toThrow('workDir "../elsewhere" must be inside the project');
  });
});

describe('shareChunks', () => {
  it('makes a chunk that is byte for byte the shared one a re-export of it, and leaves the others', async () => {
    const root = temp();
    const shared = root;
    const cli = join(root, 'cli');
    mkdirSync(cli);
    const chunk = (id: number, body: string) =>
      `export const id = ${id}; export const ids = [${id}]; export const modules = { ${body} };\n`;
    writeFileSync(join(shared, '1.index.js'), chunk(1, '7: () => "seven"'));
    writeFileSync(join(cli, '1.index.js'), chunk(1, '7: () => "seven"'));
    writeFileSync(join(shared, '2.index.js'), chunk(2, '8: () => "eight"'));
    writeFileSync(join(cli, '2.index.js'), chunk(2, '8: () => "huit"'));
    writeFileSync(join(cli, '3.index.js'), chunk(3, '9: () => "nine"'));
    writeFileSync(join(shared, 'index.js'), 'export {};\n');
    writeFileSync(join(cli, 'index.js'), 'export {};\n');
    writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');

    expect(shareChunks(shared, [cli])).toEqual([join(cli, '1.index.js')]);
    expect(readFileSync(join(cli, '1.index.js'), 'utf8')).toBe("export * from '../1.index.js';\n");
    expect(readFileSync(join(cli, '2.index.js'), 'utf8')).toBe(chunk(2, '8: () => "huit"'));
    expect(readFileSync(join(cli, '3.index.js'), 'utf8')).toBe(chunk(3, '9: () => "nine"'));
    expect(readFileSync(join(cli, 'index.js'), 'utf8')).toBe('export {};\n');
    // What webpack's chunk loader reads from the namespace: the shared chunk's own exports.
    const viaCli = (await import(pathToFileURL(join(cli, '1.index.js')).href)) as Chunk;
    const own = (await import(pathToFileURL(join(shared, '1.index.js')).href)) as Chunk;
    expect(viaCli.ids).toEqual([1]);
    expect(viaCli.modules).toBe(own.modules);
  });
});

describe('licenses', () => {
  it('lists each bundled package once, sorted, with its license text, and none of our files', () => {
    const text = licenses([
      join(process.cwd(), 'node_modules', 'zod', 'v4', 'classic', 'external.js'),
      join(process.cwd(), 'node_modules', '@actions', 'core', 'lib', 'core.js'),
      join(process.cwd(), 'node_modules', 'zod', 'index.js'),
      join(process.cwd(), 'src', 'index.ts'),
    ]);
    expect(text.startsWith('@actions/core\nMIT\n')).toBe(true);
    expect(text.match(/^zod\nMIT\n/gm)).toHaveLength(1);
    expect(text).toContain('Permission is hereby granted');
    expect(text).not.toContain('src/index.ts');
    expect(text.indexOf('@actions/core')).toBeLessThan(text.indexOf('\nzod\n'));
  });
});
