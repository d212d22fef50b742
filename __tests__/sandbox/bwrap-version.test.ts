/**
 * bubblewrap's version read from its program file (bwrap-version.ts): the same answer as
 * `bwrap --version`, and `--version` asked when the file does not say it once and plainly.
 */
import { execa } from 'execa';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bwrapVersion, compiledVersion } from '../../src/sandbox/bwrap-version.js';
import { findExecutable } from '../../src/util/find-executable.js';

const bwrap = findExecutable(process.env.PATH, ['bwrap']);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A program that answers `--version` with `answer`, its file holding `body` too. */
function program(body: string, answer: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ci-agent-bwrap-version-'));
  dirs.push(dir);
  const file = join(dir, 'bwrap');
  writeFileSync(file, `#!/bin/sh\necho '${answer}'\nexit 0\n# ${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('bubblewrap version', () => {
  it.runIf(bwrap !== undefined)(
    'reads what `bwrap --version` prints from the program',
    async () => {
      const { stdout } = await execa(bwrap!, ['--version']);
      const printed = /(\d+\.\d+(?:\.\d+)?)/.exec(stdout)?.[1];
      expect(printed).toBeDefined();
      expect(compiledVersion(bwrap!)).toBe(printed);
      expect(await bwrapVersion(bwrap!, process.env.PATH)).toBe(printed);
    },
  );

  it('asks the program when its file holds no version string', async () => {
    const file = program('no version here', 'bubblewrap 9.8.7');
    expect(compiledVersion(file)).toBeUndefined();
    expect(await bwrapVersion(file, process.env.PATH)).toBe('9.8.7');
  });

  it('asks the program when its file holds two different versions', async () => {
    const file = program('\0bubblewrap 0.1.0\0 and \0bubblewrap 0.2.0\0', 'bubblewrap 9.8.7');
    expect(compiledVersion(file)).toBeUndefined();
    expect(await bwrapVersion(file, process.env.PATH)).toBe('9.8.7');
  });

  it('takes the one version string the file holds, NUL-terminated as compiled', async () => {
    const file = program('\0bubblewrap 0.11.2\0', 'bubblewrap 9.8.7');
    expect(await bwrapVersion(file, process.env.PATH)).toBe('0.11.2');
    // Text that is not a C string (no NUL around it) is not taken for one.
    expect(compiledVersion(program('needs bubblewrap 0.4.0 or later', 'x'))).toBeUndefined();
  });

  it('says unknown when neither the file nor the program tells', async () => {
    expect(await bwrapVersion(program('nothing', 'no version'), process.env.PATH)).toBe('unknown');
  });
});
