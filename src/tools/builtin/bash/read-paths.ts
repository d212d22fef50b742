/**
 * Where a word of a read-only command points, for the workspace check of the default mode
 * (read-scope.ts). Unlike file-operands.ts, which feeds deny rules and may skip what it cannot
 * tell, this side fails closed: a word it cannot place says so, and counts as outside.
 *
 *   1. `$HOME` and `~` are the tools' home; any other parameter, command or arithmetic expansion,
 *      and `~user`, is known only at run time;
 *   2. braces are expanded as bash does (comma lists; a sequence, or braces mixed with quotes,
 *      cannot be placed);
 *   3. a relative word is taken in every directory the command may run in;
 *   4. a glob: its literal directory, plus every entry it matches now (a superset of bash's
 *      matches), followed through symlinks;
 *      a glob that could climb out (`..` after it, a segment that can match `..`, more than a few
 *      segments or matches, extglob syntax) cannot be placed;
 *   5. every path is kept as written (normalized) and as the kernel resolves it (symlinks, `..`
 *      after a link);
 *   6. /dev/null and the standard streams are no reads; the rest of /dev, /proc and /sys are
 *      the kernel's, outside every workspace.
 */
import { readdirSync } from 'node:fs';
import { posix } from 'node:path';
import { realPathOf } from '../../paths.js';
import { tooManyStars } from './glob-limits.js';
import type { Word } from '../../../shell/types.js';

/** The paths a word names, or why it names something that cannot be placed before it runs. */
export type WordPlaces = { paths: string[] } | { unknown: string };

const MAX_BRACE_WORDS = 64;
const MAX_GLOB_SEGMENTS = 4;
const MAX_GLOB_MATCHES = 1000;
const RUN_TIME = new Set(['parameter', 'command', 'arithmetic', 'process']);
const STANDARD_DEVICES = new Set([
  '/dev/null',
  ...['/dev/stdin', '/dev/stdout', '/dev/stderr'],
  ...['/dev/fd/0', '/dev/fd/1', '/dev/fd/2'],
]);
/** The null device and the standard streams: neither a file read nor a file written. */
export function isStandardDevice(path: string): boolean {
  return STANDARD_DEVICES.has(path);
}

/** Kernel interfaces: process environments and memory, devices, system state. */
const KERNEL = /^\/(proc|sys|dev)(\/|$)/;
/** tmpfs under /dev holds ordinary files. */
const ORDINARY_UNDER_DEV = /^\/dev\/shm(\/|$)/;

export function wordPlaces(
  word: Word,
  directories: readonly string[],
  homeDir: string,
): WordPlaces {
  const home = /^(?:\$HOME|\$\{HOME\})(\/.*)?$/.exec(word.value);
  const value = home ? `${homeDir}${home[1] ?? ''}` : word.value;
  if (value === '' || value === '-') return { paths: [] };
  const rest = home ? value.slice(homeDir.length) : value;
  if (/[$`]/.test(rest) || (!home && word.expansions.some((kind) => RUN_TIME.has(kind)))) {
    return { unknown: `${word.raw} (known only when it runs)` };
  }
  const alternatives = word.expansions.includes('brace') ? expandBraces(word) : [value];
  if (!alternatives) return { unknown: `${word.raw} (a brace expansion)` };
  const paths: string[] = [];
  for (const alternative of alternatives) {
    const expanded = expandTilde(alternative, homeDir);
    if (expanded === undefined) return { unknown: `${word.raw} (another user's home)` };
    const absolute = posix.isAbsolute(expanded)
      ? [expanded]
      : directories.map((directory) => `${directory}/${expanded}`);
    for (const path of absolute) {
      const found = word.expansions.includes('glob') ? globPlaces(path, word) : resolved(path);
      if ('unknown' in found) return found;
      paths.push(...found.paths);
    }
  }
  return { paths: [...new Set(paths)] };
}

/** The kernel's paths among `paths` (resolved ones included): outside every workspace. */
export function kernelPaths(paths: readonly string[]): string[] {
  return paths.filter((path) => KERNEL.test(path) && !ORDINARY_UNDER_DEV.test(path));
}

/** The path as written and as resolved; a standard stream or /dev/null is no read at all. */
function resolved(path: string): { paths: string[] } {
  const normalized = posix.normalize(path).replace(/(.)\/+$/, '$1');
  if (STANDARD_DEVICES.has(normalized)) return { paths: [] };
  const real = realPathOf(path);
  return {
    paths: real === normalized || STANDARD_DEVICES.has(real) ? [normalized] : [normalized, real],
  };
}

function globPlaces(pattern: string, word: Word): WordPlaces {
  const segments = pattern.split('/');
  const first = segments.findIndex((segment) => /[*?[]/.test(segment));
  if (first === -1) return resolved(pattern);
  const globbed = segments.slice(first).filter((segment) => segment !== '');
  const cannot = (why: string): WordPlaces => ({ unknown: `${word.raw} (${why})` });
  if (globbed.includes('..')) return cannot('a glob followed by ..');
  // Extglob groups and leading negations read differently in bash and in the matcher used here.
  if (globbed.some((segment) => /[(){}\\]/.test(segment) || segment.startsWith('!')))
    return cannot('a glob this check does not read');
  // bash matches `.` and `..` only by a pattern that starts with a dot (`.*`, `.?`).
  if (globbed.some((segment) => segment.startsWith('.') && segmentPattern(segment).test('..')))
    return cannot('a glob that can match ..');
  if (globbed.length > MAX_GLOB_SEGMENTS) return cannot('a glob too deep to check');
  if (tooManyStars(globbed.join('/'))) return cannot('a glob with too many stars to check');
  const base = segments.slice(0, first).join('/') || '/';
  const matches = expandSegments(base, globbed);
  if (!matches) return cannot('a glob matching too many files');
  const paths = [base, ...matches].flatMap((path) => resolved(path).paths);
  return { paths };
}

/**
 * The entries `segments` match below `base`, one directory level per segment. readdir follows a
 * symlinked directory as bash's globbing does. Each segment matches as a superset of bash's
 * reading: a bracket expression stands for any one character, and `*` takes dotfiles too.
 */
function expandSegments(base: string, segments: readonly string[]): string[] | undefined {
  let current = [base];
  for (const segment of segments) {
    const pattern = /[*?[]/.test(segment) ? segmentPattern(segment) : undefined;
    const next: string[] = [];
    for (const directory of current) {
      if (!pattern) {
        next.push(posix.join(directory, segment));
        continue;
      }
      for (const name of entries(directory))
        if (pattern.test(name)) next.push(posix.join(directory, name));
    }
    if (next.length > MAX_GLOB_MATCHES) return undefined;
    current = next;
  }
  return current;
}

function segmentPattern(segment: string): RegExp {
  let source = '';
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index] as string;
    const close = char === '[' ? bracketEnd(segment, index) : -1;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (close !== -1) {
      source += '.';
      index = close;
    } else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

/**
 * Where the bracket expression opened at `open` ends; -1 when `[` is a plain character. A `]`
 * right after `[` or `[!` is a member, and so is a class such as `[:alpha:]`.
 */
function bracketEnd(segment: string, open: number): number {
  let index = open + 1;
  if (segment[index] === '!' || segment[index] === '^') index++;
  if (segment[index] === ']') index++;
  for (; index < segment.length; index++) {
    if (segment[index] === ']') return index;
    if (segment.startsWith('[:', index)) {
      const end = segment.indexOf(':]', index + 2);
      if (end !== -1) index = end + 1;
    }
  }
  return -1;
}

function entries(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

/**
 * bash's brace expansion of comma lists, nested ones included; undefined for a sequence
 * (`{1..9}`), for braces in a word that also has quotes (which may hide a brace or comma from
 * bash but not from this reading), and past MAX_BRACE_WORDS words.
 */
function expandBraces(word: Word): string[] | undefined {
  if (/["'\\]/.test(word.raw)) return undefined;
  const expand = (text: string): string[] | undefined => {
    const open = text.indexOf('{');
    if (open === -1) return [text];
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let index = open; index < text.length && close === -1; index++) {
      const char = text[index];
      if (char === '{') depth++;
      else if (char === '}' && --depth === 0) close = index;
      else if (char === ',' && depth === 1) commas.push(index);
    }
    if (close === -1) return [text];
    const body = text.slice(open + 1, close);
    if (commas.length === 0) {
      if (body.includes('..')) return undefined;
      // `{x}` is no expansion: keep it, expand what follows.
      const after = expand(text.slice(close + 1));
      return after?.map((tail) => `${text.slice(0, close + 1)}${tail}`);
    }
    const bounds = [open, ...commas, close];
    const out: string[] = [];
    for (let part = 0; part + 1 < bounds.length; part++) {
      const choice = text.slice((bounds[part] as number) + 1, bounds[part + 1]);
      const words = expand(`${text.slice(0, open)}${choice}${text.slice(close + 1)}`);
      if (!words) return undefined;
      out.push(...words);
      if (out.length > MAX_BRACE_WORDS) return undefined;
    }
    return out;
  };
  return expand(word.value);
}

function expandTilde(value: string, homeDir: string): string | undefined {
  if (value === '~' || value.startsWith('~/')) return `${homeDir}${value.slice(1)}`;
  return value.startsWith('~') ? undefined : value;
}
