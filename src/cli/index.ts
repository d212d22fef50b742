#!/usr/bin/env node
/**
 * Entry point of the `ci-agent` binary: wires the process to main() and nothing else.
 */
import '../util/zod-jitless.js';
import { main } from './main.js';

const controller = new AbortController();
let signalExit: number | undefined;
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => {
    if (signalExit !== undefined) process.exit(code); // a second signal: stop now
    signalExit = code;
    controller.abort(new Error(`received ${signal}`));
  });
}

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A reader that goes away (`ci-agent --help | head -1`) closes the pipe: what is left to print
 * has nowhere to go, which is no error of the run's. Anything else on the stream still throws.
 */
function writer(stream: NodeJS.WriteStream): (text: string) => void {
  let open = true;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    open = false;
  });
  return (text) => {
    if (open) stream.write(text);
  };
}

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: writer(process.stdout),
  stderr: writer(process.stderr),
  readStdin,
  signal: controller.signal,
});
process.exitCode = signalExit ?? code;
