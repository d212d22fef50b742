import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { judgesRemovedText, watchAbsentJudges } from '../../src/sandbox/absent-judges.js';

describe('watchAbsentJudges', () => {
  let scratch: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'ci-agent-absent-'));
    root = join(scratch, 'repo');
    outside = join(scratch, 'outside');
    mkdirSync(join(root, '.github'), { recursive: true });
    mkdirSync(join(outside, 'workflows'), { recursive: true });
    writeFileSync(join(root, '.mcp.json'), '{}');
    writeFileSync(join(outside, 'workflows', 'ci.yml'), 'on: push\n');
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  const watch = (...paths: string[]) =>
    watchAbsentJudges(paths.map((path) => ({ root, path: join(root, path) })));

  it('watches only the locations that are absent now', () => {
    const watched = watch('.mcp.json', '.claude', '.github/actions');
    expect(watched.locations).toEqual([join(root, '.claude'), join(root, '.github/actions')]);
  });

  it('removes a file or a folder that appeared at a watched location, and says which', () => {
    const watched = watch('.claude', '.github/actions', '.github/ci-agent.json');
    mkdirSync(join(root, '.claude'));
    writeFileSync(join(root, '.claude', 'settings.json'), '{}');
    mkdirSync(join(root, '.github', 'actions', 'x'), { recursive: true });
    writeFileSync(join(root, '.github', 'dependabot.yml'), 'version: 2\n');
    expect(watched.sweep()).toEqual(['.claude', '.github/actions']);
    expect(existsSync(join(root, '.claude'))).toBe(false);
    expect(existsSync(join(root, '.github', 'actions'))).toBe(false);
    expect(readFileSync(join(root, '.github', 'dependabot.yml'), 'utf8')).toBe('version: 2\n');
    expect(watched.sweep()).toEqual([]);
  });

  it('removes a new link on the way to a location, and never what the link leads to', () => {
    rmSync(join(root, '.github'), { recursive: true });
    const watched = watch('.github/workflows');
    symlinkSync(outside, join(root, '.github'));
    expect(watched.sweep()).toEqual(['.github']);
    expect(existsSync(join(root, '.github'))).toBe(false);
    expect(readFileSync(join(outside, 'workflows', 'ci.yml'), 'utf8')).toBe('on: push\n');
  });

  it('removes a link at the location as a link', () => {
    const watched = watch('.github/workflows');
    symlinkSync(join(outside, 'workflows'), join(root, '.github', 'workflows'));
    expect(watched.sweep()).toEqual(['.github/workflows']);
    expect(existsSync(join(outside, 'workflows', 'ci.yml'))).toBe(true);
  });

  it('leaves a new link alone that leads to nothing at the location', () => {
    rmSync(join(root, '.github'), { recursive: true });
    const watched = watch('.github/actions');
    symlinkSync(outside, join(root, '.github'));
    expect(watched.sweep()).toEqual([]);
    expect(existsSync(join(root, '.github', 'workflows'))).toBe(true);
  });
});

describe('judgesRemovedText', () => {
  it('names each path, and says it is gone', () => {
    expect(judgesRemovedText(['.mcp.json'])).toBe(
      'the agent created `.mcp.json`, where the files that configure and check the run live; the sandbox removed it',
    );
  });
});
