/**
 * `npm run demo` as a new user runs it: the built demo, offline, on the embedded sample.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const DEMO = resolve(import.meta.dirname, '../../dist/demo/index.js');

describe('npm run demo (dist/demo/index.js)', () => {
  it('fixes the sample repository with the recorded session, verifies it and exits 0', () => {
    expect(existsSync(DEMO), 'run "npm run build" first').toBe(true);
    const run = spawnSync(process.execPath, [DEMO], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const root = /sample repository at (\S+)/.exec(run.stdout)?.[1];
    expect(root).toBeTruthy();
    try {
      expect(run.stdout).toContain("→ allow (allowed by rule 'Bash(npm test)' (demo policy))");
      expect(run.stdout).toContain(
        '-  for (let i = 1; i < values.length; i++) total += values[i];',
      );
      expect(run.stdout).toContain(
        '+  for (let i = 0; i < values.length; i++) total += values[i];',
      );
      expect(run.stdout).toContain('verification: npm test exited 0');
      expect(run.stdout).toMatch(/result: success after 5 turns/);
      expect(readFileSync(`${root}/src/stats.js`, 'utf8')).toContain('let i = 0;');
    } finally {
      if (root) rmSync(root, { recursive: true, force: true });
    }
  });
});
