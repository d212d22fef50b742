/**
 * The MCP stdio transport, with the server in a process group of its own. The SDK's transport
 * signals only the process it started; a server launched through `npx`, `uvx` or a shell script
 * runs as a grandchild and would outlive the run. Here every signal goes to the whole group.
 *
 * Closing: end stdin (the polite way to ask a stdio server to stop), wait `graceMs`; SIGTERM the
 * group, wait `graceMs`; SIGKILL the group. Whatever the leader left behind in its group is
 * killed once it has exited, however it exited, and so is what it started outside the group
 * (setsid, a daemon that double-forked): the server runs in a process scope of the sweep kind
 * (process/process-scope.ts), started and ended by the process module (process/run-process.ts). Not a PID namespace: a server lives the whole session, and its pid,
 * which commands may use, must be the one they see.
 *
 * A message over the size limit (message-limit.ts) is a fault: a stream cut mid-message cannot be
 * read in step again, so the server is stopped and reported as a crashed one is.
 */
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LineEvent } from './message-limit.js';
import { LimitedLineReader, MAX_MESSAGE_BYTES, oversizePhrase } from './message-limit.js';
import { runProcess, type CommandSandbox, type RunningProcess } from '../process/run-process.js';
import { errorMessage } from '../util/errors.js';

export interface StdioServerProcess {
  command: string;
  args: readonly string[];
  /** The whole environment of the server: nothing else is inherited. */
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** Per signal step when closing; default 1000 ms. */
  graceMs?: number;
  /** The largest message read; default MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
  /** The OS sandbox the server runs in; its PID namespace is then the server's scope. */
  sandbox?: CommandSandbox;
}

/** Characters of stderr kept for messages about a server that failed. */
const STDERR_TAIL_CHARS = 2_000;
/** After the leader exits, how long its pipes may stay open (held by a leftover) before we stop. */
const PIPE_DRAIN_MS = 200;

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: RunningProcess | undefined;
  private readonly reader: LimitedLineReader;
  private readonly queue: LineEvent[] = [];
  /** Why we stopped the server ourselves, in the words of exitDescription. */
  private fault: string | undefined;
  private stderr = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private closed = false;
  private readonly exited: Promise<void>;
  private markExited!: () => void;

  constructor(private readonly server: StdioServerProcess) {
    this.exited = new Promise((resolve) => (this.markExited = resolve));
    this.reader = new LimitedLineReader(server.maxMessageBytes ?? MAX_MESSAGE_BYTES);
  }

  /** The server's process id (its group id too), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The end of what the server wrote to stderr: what explains a failure. */
  get stderrTail(): string {
    return this.stderr.trim();
  }

  /** How the server ended, in words; undefined while it runs. */
  get exitDescription(): string | undefined {
    if (this.fault) return this.fault;
    if (!this.exit) return undefined;
    if (this.exit.signal) return `was killed by ${this.exit.signal}`;
    return `exited with code ${this.exit.code}`;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the MCP server process was already started');
    const { command, args, env, sandbox } = this.server;
    const child = runProcess({
      file: command,
      args,
      cwd: this.server.cwd,
      env: sandbox ? { ...env, ...sandbox.env } : env,
      stdin: 'pipe',
      ...(sandbox ? { sandbox } : { scope: 'process-sweep' as const }),
      onStdoutBytes: (chunk) => {
        this.queue.push(...this.reader.push(chunk));
        this.drainMessages();
      },
      // Only the tail is kept, here: a server writes to stderr for as long as it lives.
      maxOutputChars: 0,
      onStderr: (chunk) => {
        this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS);
      },
      // Once the leader exits, whatever it left holding the pipes open gets a moment, then
      // is killed with the rest of the scope.
      drainGraceMs: PIPE_DRAIN_MS,
      afterExit: 'kill',
      killGraceMs: this.server.graceMs ?? 1_000,
    });
    this.child = child;
    void child.exited.then((exit) => {
      // A server that never started did not exit: why it failed is start()'s rejection.
      if (child.pid === undefined) this.markExited();
      else this.recordExit(exit.exitCode, exit.exitSignal);
    });
    void child.result.then(() => this.finish());
    return child.started.catch((error: unknown) => {
      throw new Error(`cannot start ${command}: ${errorMessage(error)}`);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || this.closed) {
      return Promise.reject(new Error('the MCP server process is not running'));
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.exit) {
      this.finish();
      return;
    }
    const grace = this.server.graceMs ?? 1_000;
    child.stdin?.end();
    if (await this.exitsWithin(grace)) return;
    // SIGTERM to the group, SIGKILL `graceMs` later (the process module's kill grace).
    child.stop();
    await this.exited;
  }

  /** Stops the server at once: for a cancelled run, where nobody waits for a polite exit. */
  kill(): void {
    this.child?.kill();
  }

  private exitsWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private recordExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exit) return;
    this.exit = { code, signal };
    this.markExited();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.drainMessages({ deferAfterNotification: false });
    this.reader.clear();
    this.onclose?.();
  }

  private drainMessages({ deferAfterNotification = true } = {}): void {
    for (;;) {
      const event = this.queue.shift();
      if (event === undefined) return;
      if (event.kind === 'oversize') {
        this.stopForOversize(event.bytes);
        return;
      }
      // A line that is not JSON-RPC (a server logging to stdout): report it, keep reading.
      if (event.kind === 'invalid') {
        this.onerror?.(event.error);
        continue;
      }
      this.onmessage?.(event.message);
      // The SDK handles a notification one microtask later than a response: a progress
      // notification read together with its call's response would find its handler gone.
      if (deferAfterNotification && !('id' in event.message)) {
        queueMicrotask(() => this.drainMessages());
        return;
      }
    }
  }

  /** The server is stopped at once; its exit closes the transport, which fails pending calls. */
  private stopForOversize(bytes: number): void {
    if (this.fault) return;
    const limit = this.server.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.fault = `${oversizePhrase(bytes, limit, true)}, so it was stopped`;
    this.queue.length = 0;
    this.child?.kill();
  }
}
