/**
 * What the Messages API bills for the input of a sequence of requests, counted from the request
 * bodies alone, so that two clients' runs of the same session can be priced the same way.
 *
 * The model of prompt caching it applies (Anthropic's prompt-caching documentation):
 * 1. A request is a sequence of blocks in the API's order: tools (one block each), system (one
 *    block each, a string is one), messages (each content block; a string content is one). The
 *    model is part of the key: another model shares no cache.
 * 2. A block with `cache_control` is a breakpoint; at most four per request (more is refused).
 *    The prefix up to and including a breakpoint is cached when it has at least the minimum
 *    cacheable length (1024 tokens here); a shorter one is sent uncached.
 * 3. Cache entries are exactly the prefixes earlier requests had at their breakpoints, each
 *    alive for its TTL (5 minutes, or 1 hour for `ttl: "1h"`) from its last write or read.
 * 4. For each breakpoint the API looks for an entry at the breakpoint and at each block boundary
 *    up to 20 blocks before it; the longest prefix found is a cache read. The tokens from there up
 *    to the last cacheable breakpoint are a cache write; the rest is uncached input.
 * 5. A prefix is identical when its blocks are byte-identical as JSON, `cache_control` aside (a
 *    marker that moves does not change the content).
 *
 * Tokens are estimated as characters / 4 of each block's JSON (the replay server's estimate),
 * the same for every client counted.
 */
import { createHash } from 'node:crypto';

export interface BilledInput {
  cacheRead: number;
  /** Written with the default 5-minute TTL (1.25× the input price). */
  cacheWrite: number;
  /** Written with the 1-hour TTL (2× the input price). */
  cacheWrite1h: number;
  uncached: number;
}

export interface BillingOptions {
  /** Tokens a prefix needs before it is cached. Default 1024. */
  minCacheableTokens?: number;
  /** Default 5 minutes. */
  ttlMs?: number;
  /** Block boundaries looked at before each breakpoint. Default 20. */
  lookbackBlocks?: number;
}

/** Input price multipliers: cache reads 0.1×, 5-minute writes 1.25×, 1-hour writes 2×. */
export function weightedInput(billed: BilledInput): number {
  return (
    billed.uncached + 1.25 * billed.cacheWrite + 2 * billed.cacheWrite1h + 0.1 * billed.cacheRead
  );
}

export function totalInput(billed: BilledInput): number {
  return billed.uncached + billed.cacheWrite + billed.cacheWrite1h + billed.cacheRead;
}

export function sumBilled(bills: readonly BilledInput[]): BilledInput {
  return bills.reduce(
    (sum, bill) => ({
      cacheRead: sum.cacheRead + bill.cacheRead,
      cacheWrite: sum.cacheWrite + bill.cacheWrite,
      cacheWrite1h: sum.cacheWrite1h + bill.cacheWrite1h,
      uncached: sum.uncached + bill.uncached,
    }),
    { cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, uncached: 0 },
  );
}

const FIVE_MINUTES = 5 * 60_000;
const ONE_HOUR = 60 * 60_000;
const MAX_BREAKPOINTS = 4;

interface Block {
  /** Hash of the prefix up to and including this block. */
  hash: string;
  /** Tokens of the prefix up to and including this block. */
  tokens: number;
  /** The breakpoint's TTL in ms, when the block has `cache_control`. */
  breakpointTtl?: number;
}

/** One counter per client run: it holds the cache the requests so far have written. */
export class BillingCounter {
  private readonly cache = new Map<string, number>(); // prefix hash → expires at (ms)
  private readonly minTokens: number;
  private readonly ttlMs: number;
  private readonly lookback: number;

  constructor(options: BillingOptions = {}) {
    this.minTokens = options.minCacheableTokens ?? 1024;
    this.ttlMs = options.ttlMs ?? FIVE_MINUTES;
    this.lookback = options.lookbackBlocks ?? 20;
  }

  /** Bills one request sent at `atMs` and records what it cached. */
  bill(body: unknown, atMs: number, where = 'request'): BilledInput {
    const blocks = blocksOf(body, where, this.ttlMs);
    const total = blocks.at(-1)?.tokens ?? 0;
    const breakpoints = blocks.flatMap((block, index) =>
      block.breakpointTtl === undefined ? [] : [index],
    );
    if (breakpoints.length > MAX_BREAKPOINTS) {
      throw new Error(
        `${where}: ${breakpoints.length} cache_control breakpoints; the API allows at most ${MAX_BREAKPOINTS}`,
      );
    }
    const alive = (hash: string): boolean => (this.cache.get(hash) ?? -Infinity) > atMs;
    let readTo = -1;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= Math.max(0, breakpoint - this.lookback); index--) {
        if (alive((blocks[index] as Block).hash)) {
          readTo = Math.max(readTo, index);
          break;
        }
      }
    }
    const cacheable = breakpoints.filter(
      (index) => (blocks[index] as Block).tokens >= this.minTokens,
    );
    const read = readTo < 0 ? 0 : (blocks[readTo] as Block).tokens;
    let write = 0;
    let write1h = 0;
    let writtenTo = read;
    for (const index of cacheable) {
      const block = blocks[index] as Block;
      if (block.tokens <= writtenTo) continue;
      // The span up to a breakpoint is billed at that breakpoint's TTL.
      if (block.breakpointTtl === ONE_HOUR) write1h += block.tokens - writtenTo;
      else write += block.tokens - writtenTo;
      writtenTo = block.tokens;
    }
    if (readTo >= 0) this.refresh((blocks[readTo] as Block).hash, atMs + this.ttlMs);
    for (const index of cacheable) {
      const block = blocks[index] as Block;
      this.refresh(block.hash, atMs + (block.breakpointTtl ?? this.ttlMs));
    }
    return {
      cacheRead: read,
      cacheWrite: write,
      cacheWrite1h: write1h,
      uncached: total - writtenTo,
    };
  }

  private refresh(hash: string, expiresAt: number): void {
    this.cache.set(hash, Math.max(this.cache.get(hash) ?? 0, expiresAt));
  }
}

/**
 * Bills a run's requests in order. `times` gives each request's send time in ms (default: one
 * second apart, well inside the TTL).
 */
export function billRequests(
  bodies: readonly unknown[],
  options: BillingOptions & { times?: readonly number[] } = {},
): BilledInput[] {
  const counter = new BillingCounter(options);
  return bodies.map((body, index) =>
    counter.bill(body, options.times?.[index] ?? index * 1000, `request ${index}`),
  );
}

function blocksOf(body: unknown, where: string, defaultTtl: number): Block[] {
  if (!isRecord(body)) throw new Error(`${where}: the body is not a JSON object`);
  if (!Array.isArray(body['messages'])) throw new Error(`${where}: messages is not an array`);
  const blocks: Block[] = [];
  let hash = createHash('sha256')
    .update(JSON.stringify(body['model'] ?? null))
    .digest('hex');
  let tokens = 0;
  const add = (part: unknown, label: string): void => {
    const { cache_control: marker, ...content } = isRecord(part) ? part : { text: part };
    const text = `${label}\u0000${JSON.stringify(isRecord(part) ? content : part)}`;
    hash = createHash('sha256').update(hash).update(text).digest('hex');
    tokens += Math.ceil(text.length / 4);
    blocks.push({
      hash,
      tokens,
      ...(isRecord(marker) ? { breakpointTtl: ttlOf(marker, where, defaultTtl) } : {}),
    });
  };
  const tools: unknown = body['tools'] ?? [];
  if (!Array.isArray(tools)) throw new Error(`${where}: tools is not an array`);
  for (const tool of tools) add(tool, 'tool');
  const system = body['system'];
  if (typeof system === 'string') add(system, 'system');
  else if (Array.isArray(system)) for (const block of system) add(block, 'system');
  for (const [index, message] of (body['messages'] as unknown[]).entries()) {
    if (!isRecord(message)) throw new Error(`${where}: messages[${index}] is not an object`);
    const role = String(message['role']);
    const content = message['content'];
    // The first block of a message carries the role: a new message is a new boundary.
    if (typeof content === 'string') add(content, `${role}:start`);
    else if (Array.isArray(content))
      content.forEach((block, position) => add(block, position === 0 ? `${role}:start` : role));
    else throw new Error(`${where}: messages[${index}].content is neither a string nor an array`);
  }
  return blocks;
}

function ttlOf(marker: Record<string, unknown>, where: string, defaultTtl: number): number {
  const ttl = marker['ttl'];
  if (ttl === undefined || ttl === '5m') return defaultTtl;
  if (ttl === '1h') return ONE_HOUR;
  throw new Error(`${where}: cache_control.ttl is ${JSON.stringify(ttl)}; expected "5m" or "1h"`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
