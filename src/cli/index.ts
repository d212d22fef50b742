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

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin,
  signal: controller.signal,
});
process.exitCode = signalExit ?? code;
