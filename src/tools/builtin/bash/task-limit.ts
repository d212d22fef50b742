/**
 * What the model is told when a command in the sandbox could not start a process or a thread
 * and the sandbox holds it to a number of them (RLIMIT_NPROC, src/sandbox/sandbox.ts): the
 * message a program prints then says that a fork failed, not that a limit was reached or which.
 */

/**
 * What programs print when fork, clone or pthread_create fails with EAGAIN, measured at the
 * limit: bash (`fork: retry: Resource temporarily unavailable`, then without `retry:`), dash
 * (`Cannot fork`), Node (`spawn <file> EAGAIN`), CPython's threads, glibc's pthread_create.
 */
const FORK_FAILED =
  /\bfork: (?:retry: )?Resource temporarily unavailable|\bCannot fork\b|\bspawn \S+ EAGAIN\b|can't start new thread|pthread_create\b.*Resource temporarily unavailable/;

/** The note for the model; undefined when stderr shows no failed fork or no limit holds. */
export function taskLimitNote(stderr: string, maxTasks: number | undefined): string | undefined {
  if (maxTasks === undefined || !FORK_FAILED.test(stderr)) return undefined;
  return `A process could not be started: a command in the sandbox may have at most ${maxTasks} processes and threads at once. Start fewer at a time (fewer make jobs or test workers), and end what earlier parts of the command left running in the background`;
}
