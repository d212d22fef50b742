import type { Options } from 'execa';

/**
 * execa options that keep `child_process.spawn`'s semantics for a long-lived child the test
 * watches itself: a given env replaces the parent's (execa would merge it), an exit code or a
 * signal is a result rather than a rejection, output streams to the test's listeners instead of
 * being buffered, and `kill()` sends only the signal asked for (execa would follow with SIGKILL).
 */
export const SPAWN_LIKE = {
  extendEnv: false,
  reject: false,
  buffer: false,
  forceKillAfterDelay: false,
} as const satisfies Options;
