import { describe, expect, it } from 'vitest';
import { taskLimitNote } from '../../../../src/tools/builtin/bash/task-limit.js';

describe('taskLimitNote', () => {
  // Each as the program printed it at the limit, in a sandbox run as `runner`.
  it.each([
    '/bin/bash: fork: retry: Resource temporarily unavailable',
    'environment: line 3: fork: Resource temporarily unavailable',
    '/bin/sh: 0: Cannot fork',
    'Error: spawn sleep EAGAIN',
    "RuntimeError: can't start new thread",
    'runtime: failed to create new OS thread; pthread_create failed: Resource temporarily unavailable',
  ])('names the limit when a process or thread could not start: %s', (stderr) => {
    expect(taskLimitNote(`make: *** [all] Error 1\n${stderr}\n`, 4096)).toMatch(
      /^A process could not be started: a command in the sandbox may have at most 4096 processes and threads at once\./,
    );
  });

  it.each([
    'cat: -: Resource temporarily unavailable',
    'npm ERR! code EAGAIN',
    'fork: not a git repository',
    '',
  ])('says nothing when no fork failed: %j', (stderr) => {
    expect(taskLimitNote(stderr, 4096)).toBeUndefined();
  });

  it('says nothing where no limit holds (ci-agent runs as root)', () => {
    expect(taskLimitNote('/bin/sh: 0: Cannot fork', undefined)).toBeUndefined();
  });
});
