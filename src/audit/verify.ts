/**
 * Verifies a tool log's hash chain (src/log/log-chain.ts, docs/AUDIT.md), line by line:
 *   1. split the text at newlines; text after the last newline is a partial line (a killed
 *      write), never verified, and makes the log incomplete;
 *   2. each line must be JSON ending in the chain field; a line with seq 1 starts a chain (a
 *      run) from its session id's genesis, any other continues the one before;
 *   3. a seq out of step tells what happened: a jump whose missing seq comes later is a
 *      reordering, one that never comes is a removal, a seq already seen is an insertion; a
 *      hash that does not follow from the line's bytes is an edit;
 *   4. a chain must end with `system/log_end`: one that does not was cut (the last one: killed,
 *      or truncated when a published hash says the run ended); the published hash, when known,
 *      must be the last chain's final hash (else: truncated, if it is an earlier line's hash;
 *      replaced, if no line has it).
 * The first failure stops the walk: what follows a broken link proves nothing.
 */
import { genesisHash, lineHash, LOG_END_SUBTYPE, splitChainedLine } from '../log/log-chain.js';
import type { StreamJsonLine } from '../log/stream-json.js';

/** One whole line of the log, as verified (or up to the first bad one). */
export interface LogRecord {
  /** 1-based line number in the file. */
  line: number;
  /** The line without the chain field, parsed: the stream-json line as stdout had it. */
  value: StreamJsonLine;
  seq: number;
  hash: string;
  /** Which chain (run) of the file it belongs to, from 0. */
  chain: number;
}

export type BreakKind = 'edited' | 'removed' | 'reordered' | 'inserted' | 'truncated' | 'replaced';

/** Why a log fails verification: the finding's code (docs/AUDIT.md) and the first bad line. */
export interface ChainFailure {
  code: 'chain-broken' | 'not-chained' | 'truncated' | 'replaced';
  kind: BreakKind;
  /** 1-based line number of the first line that does not verify (one past the end: cut). */
  line: number;
  message: string;
}

export interface ChainVerdict {
  /** verified: whole and closed; incomplete: whole up to a run's end that never came; failed. */
  status: 'verified' | 'incomplete' | 'failed';
  /** The lines that verified, in order. */
  records: LogRecord[];
  /** Chains (runs) in the file. */
  chains: number;
  /** The session id of the last chain. */
  sessionId: string | undefined;
  /** `sha256:<hex>` of the last verified line: the final hash when the log is closed. */
  finalHash: string | undefined;
  closed: boolean;
  /** Set when the file ends in part of a line. */
  partialLine: number | undefined;
  failure?: ChainFailure;
}

export interface VerifyOptions {
  /** The final hash published outside the log (`sha256:<hex>`, or the bare hex). */
  expectedHash?: string;
  /** The session id the log must be of (the action's: the workflow run id). */
  expectedSessionId?: string;
}

export function verifyLogText(text: string, options: VerifyOptions = {}): ChainVerdict {
  const pieces = text.split('\n');
  const tail = pieces.pop() ?? '';
  const walk = walkChain(pieces);
  const last = walk.records.at(-1);
  const verdict: ChainVerdict = {
    status: 'verified',
    records: walk.records,
    chains: walk.chains,
    sessionId: walk.sessionId,
    finalHash: last && `sha256:${last.hash}`,
    closed: last !== undefined && last.value.subtype === LOG_END_SUBTYPE,
    partialLine: tail === '' ? undefined : pieces.length + 1,
  };
  const failure = walk.failure ?? endFailure(verdict, walk, pieces.length, options);
  if (failure) return { ...verdict, status: 'failed', failure };
  if (!verdict.closed || walk.unclosed !== undefined || verdict.partialLine !== undefined) {
    return { ...verdict, status: 'incomplete' };
  }
  return verdict;
}

interface Walk {
  records: LogRecord[];
  chains: number;
  sessionId: string | undefined;
  /** 1-based line of a chain that ended without log_end and was followed by another. */
  unclosed: number | undefined;
  failure?: ChainFailure;
}

function walkChain(lines: readonly string[]): Walk {
  const walk: Walk = { records: [], chains: 0, sessionId: undefined, unclosed: undefined };
  let previous = '';
  let seq = 0;
  let closed = true;
  const seen = new Set<number>();
  for (const [index, text] of lines.entries()) {
    const line = index + 1;
    const split = splitChainedLine(text);
    const value = split && parseLine(split.body);
    if (!split || !value) {
      const kind = parseLine(text) ? 'not-chained' : 'chain-broken';
      walk.failure = {
        code: kind,
        kind: kind === 'not-chained' && index === 0 ? 'replaced' : 'edited',
        line,
        message:
          kind === 'not-chained'
            ? `line ${line} has no ${'ci_agent_chain'} field: not a chained tool log line`
            : `line ${line} is not a JSON object with the chain field`,
      };
      return walk;
    }
    if (split.seq === 1) {
      if (!closed && walk.unclosed === undefined) walk.unclosed = line - 1;
      const sessionId = split.sessionId ?? '';
      previous = genesisHash(sessionId);
      seq = 0;
      seen.clear();
      walk.chains += 1;
      walk.sessionId = sessionId;
    }
    if (split.seq !== seq + 1) {
      walk.failure = seqFailure(lines, index, seq + 1, split.seq, seen);
      return walk;
    }
    if (lineHash(previous, split.seq, split.body) !== split.hash) {
      walk.failure = {
        code: 'chain-broken',
        kind: 'edited',
        line,
        message:
          split.seq === 1
            ? `line ${line} does not chain to the genesis of session ${JSON.stringify(walk.sessionId)}: it or its session_id was edited`
            : `line ${line} was edited: its hash does not follow from its content and line ${line - 1}`,
      };
      return walk;
    }
    previous = split.hash;
    seq = split.seq;
    seen.add(seq);
    closed = value.subtype === LOG_END_SUBTYPE && value.type === 'system';
    walk.records.push({ line, value, seq, hash: split.hash, chain: walk.chains - 1 });
  }
  return walk;
}

/** A seq out of step at `index`: which of removal, reordering or insertion explains it. */
function seqFailure(
  lines: readonly string[],
  index: number,
  expected: number,
  found: number,
  seen: ReadonlySet<number>,
): ChainFailure {
  const line = index + 1;
  if (found < expected || seen.has(found)) {
    return {
      code: 'chain-broken',
      kind: seen.has(found) ? 'inserted' : 'reordered',
      line,
      message: `line ${line} repeats link ${found} of the chain (expected ${expected}): a line was inserted or copied`,
    };
  }
  const comesLater = lines
    .slice(index + 1)
    .some((text) => splitChainedLine(text)?.seq === expected);
  return comesLater
    ? {
        code: 'chain-broken',
        kind: 'reordered',
        line,
        message: `line ${line} is link ${found} of the chain, but link ${expected} comes later: lines were reordered`,
      }
    : {
        code: 'chain-broken',
        kind: 'removed',
        line,
        message: `line ${line} is link ${found} of the chain, but ${found - expected === 1 ? `link ${expected} is` : `links ${expected}–${found - 1} are`} missing: lines were removed before it`,
      };
}

/** What the end of a walk that broke nowhere says against the published hash. */
function endFailure(
  verdict: ChainVerdict,
  walk: Walk,
  lineCount: number,
  options: VerifyOptions,
): ChainFailure | undefined {
  if (options.expectedSessionId !== undefined && walk.sessionId !== options.expectedSessionId) {
    return {
      code: 'replaced',
      kind: 'replaced',
      line: 1,
      message: `the log is of session ${JSON.stringify(walk.sessionId)}, not of ${JSON.stringify(options.expectedSessionId)}: it comes from another run`,
    };
  }
  const expected = normalizeHash(options.expectedHash);
  if (expected === undefined || verdict.finalHash === expected) return undefined;
  const at = walk.records.find((record) => `sha256:${record.hash}` === expected);
  if (at) {
    return {
      code: 'truncated',
      kind: 'truncated',
      line: at.line + 1,
      message: `the published hash is that of line ${at.line}: the lines after it were added`,
    };
  }
  if (!verdict.closed) {
    return {
      code: 'truncated',
      kind: 'truncated',
      line: lineCount + 1,
      message: `the log ends at line ${lineCount} without its closing line, but the run published a final hash: its tail was cut`,
    };
  }
  return {
    code: 'replaced',
    kind: 'replaced',
    line: 1,
    message: `the log's final hash ${verdict.finalHash} is not the published ${expected}: the log is another one (replaced, or its chain recomputed)`,
  };
}

/** `sha256:<hex>` from either form; undefined for undefined. */
export function normalizeHash(hash: string | undefined): string | undefined {
  if (hash === undefined) return undefined;
  const trimmed = hash.trim().toLowerCase();
  return trimmed.startsWith('sha256:') ? trimmed : `sha256:${trimmed}`;
}

function parseLine(text: string): StreamJsonLine | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    if (typeof (value as { type?: unknown }).type !== 'string') return undefined;
    return value as StreamJsonLine;
  } catch {
    return undefined;
  }
}
