/**
 * The process table as Linux shows it in /proc, and signals to processes and groups. Every read
 * tolerates a process that exits meanwhile: it is simply not there.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  /** Start time in clock ticks since boot: with the pid, what identifies one process. */
  startTicks: number;
  /** Exited, not yet reaped: holds nothing and cannot be signalled away. */
  zombie: boolean;
}

/** Every process visible in /proc; empty where there is no /proc. */
export function listProcesses(): ProcessEntry[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const processes: ProcessEntry[] = [];
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57 || !/^\d+$/.test(entry)) continue;
    const process = readProcess(Number(entry));
    if (process) processes.push(process);
  }
  return processes;
}

export function readProcess(pid: number): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces and parentheses; the
  // fields after it are state (3), ppid (4), pgrp (5), … starttime (22), counted from 1.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  return {
    pid,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    startTicks: Number(fields[19]),
    zombie: state === 'Z' || state === 'X',
  };
}

/** Whether `entry` is in the process's initial environment (`NAME=value`, exactly). */
export function environHas(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    // Gone, or another user's process we may not read: not ours to find this way.
    return false;
  }
}

/** Sends `signal` to the process only while `pid` still names the process seen earlier. */
export function signalProcess(seen: ProcessEntry, signal: NodeJS.Signals): void {
  if (readProcess(seen.pid)?.startTicks !== seen.startTicks) return;
  try {
    process.kill(seen.pid, signal);
  } catch {
    // ESRCH: exited in between.
  }
}

export function signalGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: every process of the group has already exited.
  }
}

/**
 * Whether a process of the group still runs. Zombies do not count: an orphan is reaped by init,
 * and where init does not reap (some containers) it would otherwise look alive forever.
 */
export function groupRuns(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  const processes = listProcesses();
  if (processes.length === 0) return true;
  return processes.some((entry) => entry.pgrp === pgid && !entry.zombie);
}
