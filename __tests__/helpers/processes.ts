/** Process checks for tests of what runs commands (Linux: reads /proc). */
import { readdirSync, readFileSync } from 'node:fs';

/** Whether the process runs; a zombie (exited, not yet reaped by init) counts as dead. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The pids a command printed, one per line (`echo $!`). */
export function printedPids(stdout: string): number[] {
  return stdout
    .split('\n')
    .filter((line) => /^\d+$/.test(line.trim()))
    .map(Number);
}

let markers = 0;

/**
 * A `sleep` duration no other process uses, for finding a command's processes in /proc by
 * their arguments: a pid the command prints is its own (in a PID namespace, not ours).
 */
export function uniqueSleep(seconds = 300): string {
  markers += 1;
  return `${seconds}.${process.pid}${String(markers).padStart(3, '0')}`;
}

/** The live processes with `argument` among their arguments (a zombie does not count). */
export function processesWith(argument: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(argument);
      } catch {
        return false;
      }
    })
    .filter(isAlive);
}

/** Waits up to `ms` for no process to carry `argument`; returns those still there. */
export async function survivorsWith(argument: string, ms = 1_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = processesWith(argument);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = processesWith(argument);
  }
  return left;
}

/** For afterEach: whatever a failed test left behind. */
export function killAllWith(argument: string): void {
  for (const pid of processesWith(argument)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Exited in between.
    }
  }
}

/**
 * The sleep markers of one test file: `marker()` hands out a uniqueSleep and remembers it;
 * `killAll()`, for afterEach, ends whatever a failed test left carrying one.
 */
export function sleepMarkers(): { marker: (seconds?: number) => string; killAll: () => void } {
  const handed: string[] = [];
  return {
    marker(seconds) {
      const argument = uniqueSleep(seconds);
      handed.push(argument);
      return argument;
    },
    killAll() {
      for (const argument of handed.splice(0)) killAllWith(argument);
    },
  };
}
