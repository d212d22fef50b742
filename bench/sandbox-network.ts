/**
 * What the network bridge adds to one sandboxed call: `bwrap --unshare-net … sh -c true` against
 * the same with the bridge snippet first (socat started and waited for), RUNS times each,
 * interleaved so load from other processes falls on every series alike. Two more series put a
 * figure on one request: curl through the bridge and the proxy to a loopback server (in the
 * sandbox, after the bridge), and the same curl straight from the host. Needs bwrap, socat, curl.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import {
  bridgeCommand,
  DEFAULT_BRIDGE_PORT,
  proxyEnvironment,
} from '../src/sandbox/network-bridge.js';
import { startNetworkProxy } from '../src/sandbox/network-proxy.js';
import { fmt, median, percentile, printTable } from './stats.js';

const RUNS = Number(process.env.CI_AGENT_BENCH_RUNS ?? 100);
const WARM_UP = 10;

async function time(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

export async function runSandboxNetworkBench(): Promise<Record<string, number>> {
  const dir = mkdtempSync('/tmp/ci-agent-bench-net-');
  const socketPath = join(dir, 'proxy.sock');
  const upstream = createServer((_, response) => response.end('ok'));
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const port = (upstream.address() as AddressInfo).port;
  const proxy = await startNetworkProxy({
    socketPath,
    allowedDomains: ['upstream.test', `127.0.0.1:${port}`],
    resolve: async () => ['127.0.0.1'],
  });
  const env = { PATH: '/usr/bin:/bin', ...proxyEnvironment(DEFAULT_BRIDGE_PORT) };
  const bridge = bridgeCommand(socketPath, DEFAULT_BRIDGE_PORT);
  const bwrap = (script: string) =>
    execa(
      '/usr/bin/bwrap',
      [
        ...['--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'],
        ...['--unshare-pid', '--die-with-parent', '--bind', dir, dir, '/bin/sh', '-c', script],
      ],
      { env, extendEnv: false },
    );
  const curl = `curl -sS --fail --max-time 5 http://upstream.test:${port}/`;
  try {
    const series: Array<[string, () => Promise<unknown>]> = [
      ['bwrap, sh -c true', () => bwrap('true')],
      ['bwrap, bridge + true', () => bwrap(`${bridge}\ntrue`)],
      ['bwrap, bridge + curl via proxy', () => bwrap(`${bridge}\n${curl}`)],
      [
        'curl on the host, no sandbox',
        () => execa('curl', ['-sS', '--fail', `http://127.0.0.1:${port}/`]),
      ],
    ];
    const samples = series.map(() => [] as number[]);
    for (let index = 0; index < RUNS + WARM_UP; index++) {
      for (const [position, [, action]] of series.entries()) {
        const ms = await time(action);
        if (index >= WARM_UP) samples[position]?.push(ms);
      }
    }
    printTable(
      `one sandboxed call, ${RUNS} runs each, interleaved (ms)`,
      series.map(([name], position) => ({
        run: name,
        median: fmt(median(samples[position] ?? []), 2),
        p95: fmt(percentile(samples[position] ?? [], 95), 2),
      })),
    );
    const [bare = [], bridged = []] = samples;
    console.log(
      `bridge start-up: +${fmt(median(bridged) - median(bare), 2)} ms median, ` +
        `+${fmt(percentile(bridged, 95) - percentile(bare, 95), 2)} ms p95 over bwrap alone`,
    );
    const allowed = proxy.decisions().filter((decision) => decision.allowed).length;
    if (allowed !== RUNS + WARM_UP) throw new Error(`expected every curl to pass, saw ${allowed}`);
    return Object.fromEntries(
      series.map(([name], position) => [name, median(samples[position] ?? [])]),
    );
  } finally {
    await proxy.close();
    upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runSandboxNetworkBench();
