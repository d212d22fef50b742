import {
  appendFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  restoreRunnerFiles,
  runnerFilesDetails,
  runnerFilesHeadline,
  snapshotRunnerFiles,
} from '../../src/github/runner-files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The runner's file commands as it lays them out: one file each, GITHUB_PATH not made. */
function runnerFiles() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-runner-files-')));
  dirs.push(root);
  const env = {
    GITHUB_ENV: join(root, 'set_env'),
    GITHUB_PATH: join(root, 'add_path'),
    GITHUB_OUTPUT: join(root, 'set_output'),
    GITHUB_STATE: join(root, 'save_state'),
    GITHUB_STEP_SUMMARY: join(root, 'step_summary'),
  };
  writeFileSync(env.GITHUB_ENV, 'EARLIER_STEP=1\n');
  writeFileSync(env.GITHUB_OUTPUT, '');
  writeFileSync(env.GITHUB_STATE, '');
  writeFileSync(env.GITHUB_STEP_SUMMARY, '## before\n');
  chmodSync(env.GITHUB_ENV, 0o640);
  return { root, env };
}

describe('restoreRunnerFiles', () => {
  it('changes nothing and names nothing when no file changed', async () => {
    const { env } = runnerFiles();
    const snapshot = await snapshotRunnerFiles(env);
    expect(await restoreRunnerFiles(snapshot)).toEqual([]);
    expect(readFileSync(env.GITHUB_ENV, 'utf8')).toBe('EARLIER_STEP=1\n');
    expect(existsSync(env.GITHUB_PATH)).toBe(false);
  });

  it('puts back GITHUB_ENV after a line was appended, byte for byte and with its mode', async () => {
    const { env } = runnerFiles();
    const snapshot = await snapshotRunnerFiles(env);
    appendFileSync(env.GITHUB_ENV, 'NODE_OPTIONS=--require=/tmp/evil.js\n');

    const changes = await restoreRunnerFiles(snapshot);
    expect(changes.map(({ name }) => name)).toEqual(['GITHUB_ENV']);
    expect(changes[0]?.before).toMatchObject({ exists: true, size: 15 });
    expect(changes[0]?.after).toMatchObject({ exists: true, size: 51 });
    expect(readFileSync(env.GITHUB_ENV, 'utf8')).toBe('EARLIER_STEP=1\n');
    expect(statSync(env.GITHUB_ENV).mode & 0o777).toBe(0o640);
    expect(runnerFilesHeadline(changes)).toContain("the runner's GITHUB_ENV");
  });

  it('removes a GITHUB_PATH that was not there, and brings back a removed GITHUB_OUTPUT', async () => {
    const { env } = runnerFiles();
    const snapshot = await snapshotRunnerFiles(env);
    writeFileSync(env.GITHUB_PATH, '/tmp/evil-bin\n');
    rmSync(env.GITHUB_OUTPUT);

    const changes = await restoreRunnerFiles(snapshot);
    expect(changes.map(({ name }) => name)).toEqual(['GITHUB_PATH', 'GITHUB_OUTPUT']);
    expect(existsSync(env.GITHUB_PATH)).toBe(false);
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe('');
    expect(runnerFilesDetails(changes)).toBe(
      [
        'GITHUB_PATH: no file → 14 bytes, sha256 ' +
          changes[0]!.after.sha256.slice(0, 16) +
          '; put back',
        'GITHUB_OUTPUT: 0 bytes, sha256 e3b0c44298fc1c14 → no file; put back',
      ].join('\n'),
    );
  });

  it('replaces a symlink planted where GITHUB_STATE was, instead of writing through it', async () => {
    const { root, env } = runnerFiles();
    const snapshot = await snapshotRunnerFiles(env);
    const elsewhere = join(root, 'elsewhere');
    writeFileSync(elsewhere, 'not the runner’s\n');
    rmSync(env.GITHUB_STATE);
    symlinkSync(elsewhere, env.GITHUB_STATE);

    const changes = await restoreRunnerFiles(snapshot);
    expect(changes.map(({ name }) => name)).toEqual(['GITHUB_STATE']);
    expect(lstatSync(env.GITHUB_STATE).isSymbolicLink()).toBe(false);
    expect(readFileSync(env.GITHUB_STATE, 'utf8')).toBe('');
    expect(readFileSync(elsewhere, 'utf8')).toBe('not the runner’s\n');
  });

  it('sees a rewrite that keeps the size', async () => {
    const { env } = runnerFiles();
    const snapshot = await snapshotRunnerFiles(env);
    writeFileSync(env.GITHUB_STEP_SUMMARY, '## after!\n');

    const changes = await restoreRunnerFiles(snapshot);
    expect(changes.map(({ name }) => name)).toEqual(['GITHUB_STEP_SUMMARY']);
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toBe('## before\n');
  });

  it('watches only the files the environment names', async () => {
    const snapshot = await snapshotRunnerFiles({});
    expect(snapshot.files).toEqual([]);
    expect(await restoreRunnerFiles(snapshot)).toEqual([]);
  });
});
