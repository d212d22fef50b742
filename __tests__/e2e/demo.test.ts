/**
 * `npm run demo` as a new user runs it: the built demo, offline, on the embedded sample: the real
 * action against a loopback GitHub API, a bare origin and a replayed model session.
 */
import { execaSync } from 'execa';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderGfm, visibleText } from '../helpers/gfm.js';

const DEMO = resolve(import.meta.dirname, '../../dist/demo/index.js');

describe('npm run demo (dist/demo/index.js)', () => {
  it('runs the action on a labelled issue: pushes the fix, opens the PR, posts the report, verifies, exits 0', () => {
    expect(existsSync(DEMO), 'run "npm run build" first').toBe(true);
    const run = execaSync(process.execPath, [DEMO], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      extendEnv: false,
      timeout: 60_000,
      reject: false,
      stripFinalNewline: false,
    });
    const artifacts = /artifacts \(tool log, transcript, patch, report\): (\S+)/.exec(
      run.stdout,
    )?.[1];
    try {
      expect(run.stderr).toBe('');
      expect(run.exitCode, run.stdout).toBe(0);
      expect(run.stdout).toContain(
        '### ✅ ci-agent: the agent made changes; pull request #8 is ready for review',
      );
      // The comment as GitHub shows it: the tool log names the rule and the file it came from.
      const comment = run.stdout.slice(run.stdout.indexOf('<!-- ci-agent:report -->'));
      expect(visibleText(renderGfm(comment, 'remark'))).toContain(
        'Bash(npm test) (.github/ci-agent.yml)',
      );
      expect(run.stdout).toContain(
        '-  for (let i = 1; i < values.length; i++) total += values[i];',
      );
      expect(run.stdout).toContain(
        '+  for (let i = 0; i < values.length; i++) total += values[i];',
      );
      expect(run.stdout).toContain('pull request: #8 ci-agent/issue-7 → main');
      expect(run.stdout).toContain('verification: npm test on the pushed branch exited 0');
      expect(artifacts).toBeTruthy();
      const log = readFileSync(`${artifacts}/tool-log.jsonl`, 'utf8');
      expect(log.split('\n').filter(Boolean).length).toBeGreaterThan(10);
      expect(readFileSync(`${artifacts}/changes.patch`, 'utf8')).toContain('+  for (let i = 0;');
      expect(readFileSync(`${artifacts}/report.md`, 'utf8')).toContain('<!-- ci-agent:report -->');
    } finally {
      if (artifacts) rmSync(dirname(artifacts), { recursive: true, force: true });
    }
  });
});
