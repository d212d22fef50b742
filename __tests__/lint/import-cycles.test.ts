/**
 * No module of src/ reaches itself through its imports (type imports included: a cycle of types
 * is still two files that cannot be read, moved or tested apart). The graph is read from the
 * sources' relative import and export-from statements.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(SPECIFIER)].map((match) =>
      resolve(dirname(file), (match[1] ?? match[2] ?? '').replace(/\.js$/, '.ts')),
    );
    graph.set(file, targets);
  }
  return graph;
}

export function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = graph.has(next) ? visit(next) : undefined;
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the import graph of src/', () => {
  it('has no cycle', () => {
    const cycle = findCycle(importGraph(sources(SRC)));
    expect(cycle?.map((file) => relative(SRC, file))).toBeUndefined();
  });

  it('finds a cycle where there is one (the check can fail)', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
    ]);
    expect(findCycle(graph)).toEqual(['/a.ts', '/b.ts', '/c.ts', '/a.ts']);
  });
});
