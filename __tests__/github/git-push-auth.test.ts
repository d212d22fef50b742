/**
 * The push's token is never on a command line (issue 14): every process's /proc/<pid>/cmdline is
 * world-readable, the sandboxed tools' view included. A push to a loopback smart-HTTP server
 * (`git http-backend` behind node:http, answering 401 without the right header) runs while a
 * worker thread reads every /proc/*\/cmdline; the server holds the push's request until the
 * watcher has seen both `git push` and `git-remote-http` alive, so the watch covers them.
 */
import { execa, execaSync } from 'execa';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createGit, GitError, push } from '../../src/github/git.js';

const TOKEN = 'ghs_pushToken0123456789abcdefABCDEF';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const sh = (cwd: string, ...args: string[]) => execaSync('git', args, { cwd }).stdout.trim();

/**
 * `git http-backend` as CGI behind node:http, for the bare repositories under `root`. A request
 * without `AUTHORIZATION: basic <x-access-token:TOKEN>` gets a 401; a push's POST waits for
 * `holdPush` first.
 */
async function startGitServer(root: string, holdPush: () => Promise<void>) {
  const authorized: string[] = [];
  const server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });
  async function answer(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.headers.authorization !== `basic ${BASIC}`) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end();
      return;
    }
    authorized.push(`${request.method} ${url.pathname}`);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (url.pathname.endsWith('/git-receive-pack')) await holdPush();
    const cgi = await execa('git', ['http-backend'], {
      input: Buffer.concat(chunks),
      encoding: 'buffer',
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'x-access-token',
        REQUEST_METHOD: request.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
      },
    });
    const output = Buffer.from(cgi.stdout);
    const split = output.indexOf('\r\n\r\n');
    const headers = output.subarray(0, split).toString().split('\r\n');
    let status = 200;
    for (const line of headers) {
      const [name, ...rest] = line.split(':');
      const value = rest.join(':').trim();
      if (name?.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else if (name) response.setHeader(name, value);
    }
    response.statusCode = status;
    response.end(output.subarray(split + 4));
  }
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(() => new Promise((done) => server.close(done)));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, authorized };
}

/**
 * A worker thread reading every process's cmdline in a loop until stopped: the ones holding a
 * needle, and a message once it has seen a `git push` and a `git-remote-http` alive at once.
 */
function watchCommandLines(needles: string[]) {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `
    const { readdirSync, readFileSync } = require('node:fs');
    const { parentPort, workerData } = require('node:worker_threads');
    const { stop, needles } = workerData;
    const hits = new Set();
    let announced = false;
    let rounds = 0;
    while (Atomics.load(stop, 0) === 0) {
      rounds += 1;
      let pushing = false;
      let remote = false;
      for (const pid of readdirSync('/proc')) {
        if (!/^\\d+$/.test(pid)) continue;
        let line;
        try { line = readFileSync('/proc/' + pid + '/cmdline', 'latin1').split('\\0').join(' '); }
        catch { continue; }
        if (/\\bgit\\b.* push /.test(line)) pushing = true;
        if (/git-remote-https?\\b/.test(line)) remote = true;
        for (const needle of needles) if (line.includes(needle)) hits.add(pid + ': ' + line);
      }
      if (pushing && remote && !announced) { announced = true; parentPort.postMessage({ seen: true }); }
    }
    parentPort.postMessage({ hits: [...hits], rounds, announced });
    `,
    { eval: true, workerData: { stop, needles } },
  );
  let seen: () => void = () => undefined;
  const pushSeen = new Promise<void>((done) => (seen = done));
  const finished = new Promise<{ hits: string[]; rounds: number; announced: boolean }>((done) =>
    worker.on('message', (message: { seen?: boolean; hits?: string[] }) => {
      if (message.seen) seen();
      else done(message as { hits: string[]; rounds: number; announced: boolean });
    }),
  );
  cleanups.push(() => worker.terminate());
  return {
    pushSeen,
    stop: async () => {
      Atomics.store(stop, 0, 1);
      return finished;
    },
  };
}

/** A bare repository served at <server>/origin.git and a clone with one commit to push. */
function repositories() {
  const root = temp('ci-agent-push-auth-');
  const bare = join(root, 'origin.git');
  sh(root, 'init', '-q', '--bare', '-b', 'main', bare);
  sh(bare, 'config', 'http.receivepack', 'true');
  const clone = temp('ci-agent-push-clone-');
  sh(clone, 'init', '-q', '-b', 'main');
  writeFileSync(join(clone, 'a.txt'), 'one\n');
  sh(clone, 'add', '-A');
  sh(clone, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'initial');
  return { root, bare, clone };
}

describe('push', () => {
  describe('when it authenticates with a token', () => {
    it('sends the header, and no process on the machine sees the token on a command line', async () => {
      const { root, bare, clone } = repositories();
      const watcher = watchCommandLines([TOKEN, BASIC, 'extraheader']);
      const server = await startGitServer(root, () => watcher.pushSeen);
      sh(clone, 'remote', 'add', 'origin', `${server.url}/origin.git`);

      await push(createGit(clone), { branch: 'ci-agent/x', token: TOKEN, serverUrl: server.url });
      const watch = await watcher.stop();

      expect(watch.announced).toBe(true);
      expect(watch.hits).toEqual([]);
      expect(server.authorized).toContain('POST /origin.git/git-receive-pack');
      expect(sh(bare, 'rev-parse', 'refs/heads/ci-agent/x')).toBe(sh(clone, 'rev-parse', 'HEAD'));
    });

    it('numbers its setting after those the environment already gives git', async () => {
      const { root, bare, clone } = repositories();
      const server = await startGitServer(root, () => Promise.resolve());
      // The remote resolves only through the environment's own setting: both must hold.
      sh(clone, 'remote', 'add', 'origin', 'https://git.example.invalid/origin.git');
      const env = {
        ...process.env,
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: `url.${server.url}/.insteadOf`,
        GIT_CONFIG_VALUE_0: 'https://git.example.invalid/',
      };

      await push(createGit(clone, env), { branch: 'b', token: TOKEN, serverUrl: server.url });
      expect(sh(bare, 'rev-parse', 'refs/heads/b')).toBe(sh(clone, 'rev-parse', 'HEAD'));
    });
  });

  describe('without a token', () => {
    it('is refused by a server that asks for one', async () => {
      const { root, clone } = repositories();
      const server = await startGitServer(root, () => Promise.resolve());
      sh(clone, 'remote', 'add', 'origin', `${server.url}/origin.git`);

      const pushing = push(createGit(clone), { branch: 'b', serverUrl: server.url });
      await expect(pushing).rejects.toThrow(GitError);
      expect(server.authorized).toEqual([]);
    });
  });
});
