/** Process checks for tests of what runs commands (Linux: reads /proc). */
import { readFileSync } from 'node:fs';

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
