/**
 * Scripted failures: a request whose method and path match a fault gets the fault's answer instead
 * of the fake's, `times` times (every time when unset). Faults apply after validation, so a broken
 * request is still reported as broken.
 */
import { DOCUMENTATION_URL } from './http.js';
import type { Reply } from './http.js';

export interface GitHubFault {
  /** Upper case; any method when unset. */
  method?: string;
  /** Matched against the path without the query: a RegExp, or a string for an exact match. */
  path: RegExp | string;
  status: number;
  /** The JSON body; GitHub's error shape with a generic message when unset. */
  body?: unknown;
  headers?: Record<string, string>;
  times?: number;
}

export interface FaultBook {
  take(method: string, path: string): Reply | undefined;
}

export function createFaultBook(faults: GitHubFault[]): FaultBook {
  const used = new Map<GitHubFault, number>();
  return {
    take(method, path) {
      // Read the array on every request so a test can push a fault while the server runs.
      const fault = faults.find(
        (candidate) =>
          (candidate.method === undefined || candidate.method.toUpperCase() === method) &&
          pathMatches(candidate.path, path) &&
          (candidate.times === undefined || (used.get(candidate) ?? 0) < candidate.times),
      );
      if (fault === undefined) return undefined;
      used.set(fault, (used.get(fault) ?? 0) + 1);
      return {
        status: fault.status,
        body: fault.body ?? {
          message: `Injected fault: ${fault.status}`,
          documentation_url: DOCUMENTATION_URL,
          status: String(fault.status),
        },
        ...(fault.headers === undefined ? {} : { headers: fault.headers }),
      };
    },
  };
}

function pathMatches(pattern: RegExp | string, path: string): boolean {
  if (typeof pattern === 'string') return pattern === path;
  // A global or sticky RegExp remembers where it stopped; every request starts afresh.
  pattern.lastIndex = 0;
  return pattern.test(path);
}
