/**
 * The push scan (issue 12, item 4): the run's secrets in every encoding and secretlint's
 * credential rules over the added lines, on hand-made patches (the table) and on real git in a
 * temp repository (context, removed lines, attributes, quoted names, commit messages, branches).
 * Credential-shaped strings are assembled at run time so that no scanner flags this file.
 */
import { execaSync } from 'execa';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGit } from '../../src/github/git.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';
import { refusalReason, scanAddedLines, scanPush } from '../../src/github/push-scan.js';

const SECRET = 'run-secret-value-0123456789';
/** Long enough that its base64 form wraps at 76 columns. */
const LONG_SECRET = `long-${'Zq9'.repeat(20)}-end`;
const URL_SECRET = 'p@ss/w0rd+with=chars';
const SECRETS = [SECRET, LONG_SECRET, URL_SECRET];

const join_ = (...parts: string[]) => parts.join('');
const GITHUB_PAT = join_('ghp_', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx');
const AWS_SECRET = join_('5ZaYQLMU3J0WLymvR8Ld', 'cGuzfQm2pNVrs3bMh4IO');
const ANTHROPIC = join_('sk-ant-', 'api03-', 'abcdefghijAB'.repeat(8), '-abcdefAA');
const SLACK = join_('xoxb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx');
const POSTGRES = join_('postgres://admin:', 's3cr3tPassw0rd', '@db.example.com:5432/app');
const PRIVATE_KEY = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

function base64At(value: string, prefix: string): string {
  return Buffer.from(`${prefix}${value}:and-more`).toString('base64');
}

/** A patch that adds `path` with `content` (lines as given). */
function newFilePatch(path: string, content: string): string {
  const lines = content.split('\n');
  return [
    `diff --git a/${path} b/${path}`,
    'new file mode 100644',
    'index 0000000..1111111',
    '--- /dev/null',
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((line) => `+${line}`),
    '',
  ].join('\n');
}

async function rulesFor(content: string, path = 'src/config.js'): Promise<string[]> {
  const scan = await scanAddedLines(newFilePatch(path, content), { secrets: SECRETS });
  return scan.findings.map((finding) => `${finding.line}: ${finding.rule}`);
}

describe('scanAddedLines', () => {
  describe('when an added line holds a secret of this run', () => {
    it.each([
      ['raw', `const token = "${SECRET}";`, 'a secret of this run'],
      ['URL-encoded', `https://u:${encodeURIComponent(URL_SECRET)}@host/`, '(URL-encoded)'],
      ['reversed', `x = "${[...SECRET].reverse().join('')}"`, '(reversed)'],
      ['base64, alone', `echo ${Buffer.from(SECRET).toString('base64')}`, '(base64)'],
      ['base64, after 1 byte', `h: ${base64At(SECRET, 'x')}`, '(base64)'],
      ['base64, after 2 bytes', `h: ${base64At(SECRET, 'xy')}`, '(base64)'],
      ['base64, in a basic auth header', `h: ${base64At(SECRET, 'x-access-token:')}`, '(base64)'],
      [
        'hex, as xxd -p prints it',
        `${Buffer.from(SECRET).toString('hex').slice(0, 60)}\n${Buffer.from(SECRET).toString('hex').slice(60)}`,
        '(hex)',
      ],
      ['cut short after 20 characters', `t = "${SECRET.slice(0, 20)}"`, 'the start of a secret'],
    ])('finds it %s', async (_label, line, rule) => {
      const found = await rulesFor(`first line\n${line}\nlast line`);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^2: (a|the start of a) secret of this run/);
      expect(found[0]).toContain(rule);
    });

    it('finds its base64 form wrapped over two lines, as `base64` prints it', async () => {
      const encoded = Buffer.from(LONG_SECRET).toString('base64');
      expect(encoded.length).toBeGreaterThan(76);
      const wrapped = `${encoded.slice(0, 76)}\n${encoded.slice(76)}`;
      const scan = await scanAddedLines(newFilePatch('notes.txt', `intro\n${wrapped}`), {
        secrets: SECRETS,
      });
      expect(scan.findings).toEqual([
        { file: 'notes.txt', line: 2, rule: 'a secret of this run (base64)' },
      ]);
      // Both pieces are redacted, each on its own line of the patch.
      expect(scan.values).toContain(encoded.slice(0, 76));
    });

    it('finds it in the name of a new file', async () => {
      const scan = await scanAddedLines(newFilePatch(`leak-${SECRET}.txt`, 'harmless'), {
        secrets: SECRETS,
      });
      expect(scan.findings).toEqual([
        { file: `leak-${SECRET}.txt`, line: 0, rule: 'a secret of this run' },
      ]);
    });

    it('reports one finding per line, the run secret rather than a pattern it also matches', async () => {
      const scan = await scanAddedLines(newFilePatch('a.env', `TOKEN=${GITHUB_PAT}`), {
        secrets: [GITHUB_PAT],
      });
      expect(scan.findings).toEqual([{ file: 'a.env', line: 1, rule: 'a secret of this run' }]);
    });
  });

  describe('when an added line holds a credential secretlint knows', () => {
    it.each([
      ['a GitHub token', `const t = "${GITHUB_PAT}";`, 'GITHUB_TOKEN (secretlint rule github)'],
      ['an AWS secret key', `aws_secret_access_key = ${AWS_SECRET}`, 'AWSSecretAccessKey'],
      ['an Anthropic key', `ANTHROPIC_API_KEY=${ANTHROPIC}`, 'ANTHROPIC_API_KEY'],
      ['a Slack token', `slack: ${SLACK}`, 'SLACK_TOKEN'],
      ['a database URL with its password', `DATABASE_URL=${POSTGRES}`, 'PostgreSQLConnection'],
    ])('finds %s', async (_label, line, rule) => {
      const found = await rulesFor(`// config\n${line}`);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^2: /);
      expect(found[0]).toContain(rule);
    });

    it('finds a private key, at its first line', async () => {
      const found = await rulesFor(`# deploy key\n${PRIVATE_KEY.trim()}`, 'deploy/key.pem');
      expect(found).toEqual(['2: PrivateKey (secretlint rule privatekey)']);
    });

    it('finds a GCP service account key file by its JSON shape', async () => {
      const key = JSON.stringify(
        {
          type: 'service_account',
          project_id: 'demo',
          private_key_id: 'abc123',
          private_key: PRIVATE_KEY,
          client_email: 'ci@demo.iam.gserviceaccount.com',
        },
        null,
        2,
      );
      const found = await rulesFor(key, 'deploy/service-account.json');
      expect(found).toContain('1: PrivateKeyJSON (secretlint rule gcp)');
    });

    it('is not silenced by a secretlint-disable comment the agent wrote', async () => {
      const found = await rulesFor(`// secretlint-disable\nconst t = "${GITHUB_PAT}";`);
      expect(found).toEqual(['2: GITHUB_TOKEN (secretlint rule github)']);
    });

    it.each([
      ['a GitHub token', `const t = "${GITHUB_PAT}";`, GITHUB_PAT],
      ['an AWS secret key', `aws_secret_access_key = ${AWS_SECRET}`, AWS_SECRET],
      ['an Anthropic key', `ANTHROPIC_API_KEY=${ANTHROPIC}`, ANTHROPIC],
      ['a database password', `DATABASE_URL=${POSTGRES}`, 's3cr3tPassw0rd'],
      ['a private key', PRIVATE_KEY.trim(), PRIVATE_KEY.split('\n')[3]!],
    ])(
      'gives what it found in %s, so the patch can be redacted, and never puts it in a finding',
      async (_label, content, credential) => {
        const patch = newFilePatch('a.js', content);
        const scan = await scanAddedLines(patch, { secrets: [] });
        expect(scan.findings).toHaveLength(1);
        expect(createSecretMasker(scan.values).mask(patch)).not.toContain(credential);
        expect(JSON.stringify(scan.findings)).not.toContain(credential);
      },
    );
  });

  describe('when nothing secret is added', () => {
    it.each([
      ['a placeholder Anthropic key', 'ANTHROPIC_API_KEY=sk-ant-...'],
      ['a placeholder GitHub token', `GITHUB_TOKEN=ghp_${'x'.repeat(36)}`],
      ['a placeholder in capitals', `GITHUB_TOKEN=ghp_${'X'.repeat(36)}`],
      ['a workflow expression', 'token: ${{ secrets.GITHUB_TOKEN }}'],
      ['a password read from the environment', 'const password = process.env.PASSWORD;'],
      ['a database URL built from variables', 'postgres://${USER}:${PASSWORD}@localhost/app'],
      ['the mask itself', 'token: ***'],
      ['part of a secret', `prefix ${SECRET.slice(0, 12)} only`],
      ['a value too short to be a secret', 'abc1234'],
      ['an ordinary line of code', 'export function mean(values) { return 0; }'],
    ])('finds nothing in %s', async (_label, line) => {
      expect(await rulesFor(`${line}\n`)).toEqual([]);
    });

    it('finds nothing in an empty patch', async () => {
      expect(await scanAddedLines('', { secrets: SECRETS })).toEqual({ findings: [], values: [] });
    });
  });
});

describe('refusalReason', () => {
  it('names the first three places and how many more, and says where the patch is', () => {
    const reason = refusalReason(['a.js line 1: x', 'b.js line 2: y', 'c.js line 3: z', 'd', 'e']);
    expect(reason).toBe(
      'nothing was pushed: what would be pushed holds a secret (a.js line 1: x; b.js line 2: y; c.js line 3: z; and 2 more); the patch, with it redacted, is in the artifact',
    );
  });
});

describe('scanPush', () => {
  let repo: string | undefined;
  afterEach(() => {
    if (repo) rmSync(repo, { recursive: true, force: true });
    repo = undefined;
  });
  const git = (cwd: string, ...args: string[]) =>
    execaSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd,
    }).stdout.trim();

  function repository(files: Record<string, string>): { root: string; base: string } {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-push-scan-')));
    repo = root;
    git(root, 'init', '-q', '-b', 'main');
    write(root, files);
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'base');
    return { root, base: git(root, 'rev-parse', 'HEAD') };
  }
  function write(root: string, files: Record<string, string>): void {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
  }
  function commit(root: string, files: Record<string, string>, message = 'change'): string {
    write(root, files);
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', message);
    return git(root, 'rev-parse', 'HEAD');
  }

  it('finds a secret on an added line of a changed file, at its line in the file', async () => {
    const { root, base } = repository({ 'src/a.js': 'one\ntwo\nthree\nfour\n' });
    const head = commit(root, { 'src/a.js': `one\ntwo\nconst t = "${SECRET}";\nfour\n` });
    const scan = await scanPush(createGit(root, {}), {
      base,
      head,
      branch: 'ci-agent/issue-1',
      secrets: SECRETS,
    });
    expect(scan.findings).toEqual(['src/a.js line 3: a secret of this run']);
    expect(scan.patch).toContain(`+const t = "${SECRET}";`);
  });

  it('does not count a secret that was already there (context) or is being removed', async () => {
    const { root, base } = repository({
      'old.txt': `keep ${SECRET}\nremove ${SECRET}\nline\n`,
    });
    const head = commit(root, { 'old.txt': `keep ${SECRET}\nline\nadded\n` });
    const scan = await scanPush(createGit(root, {}), {
      base,
      head,
      branch: 'b',
      secrets: SECRETS,
    });
    expect(scan.findings).toEqual([]);
  });

  it('reads a file the agent marked binary (or gave a diff driver) as text', async () => {
    const { root, base } = repository({ 'a.txt': 'x\n' });
    git(root, 'config', 'diff.hide.textconv', 'true');
    const head = commit(root, {
      '.gitattributes': 'secret.dat binary\nhidden.txt diff=hide\n',
      'secret.dat': `\0\x01binary ${SECRET}\n`,
      'hidden.txt': `${GITHUB_PAT}\n`,
    });
    const scan = await scanPush(createGit(root, {}), {
      base,
      head,
      branch: 'b',
      secrets: SECRETS,
    });
    expect(scan.findings).toEqual([
      'hidden.txt line 1: GITHUB_TOKEN (secretlint rule github)',
      'secret.dat line 1: a secret of this run',
    ]);
  });

  it('finds a secret the agent committed and removed again: the history is pushed too', async () => {
    const { root, base } = repository({ 'a.txt': 'x\n' });
    const added = commit(root, { 'a.txt': `x\n${SECRET}\n` }, 'add');
    const head = commit(root, { 'a.txt': 'x\ny\n' }, 'remove');
    const scan = await scanPush(createGit(root, {}), {
      base,
      head,
      branch: 'b',
      secrets: SECRETS,
    });
    const short = git(root, 'rev-parse', '--short', added);
    expect(scan.findings).toEqual([`a.txt line 2 in commit ${short}: a secret of this run`]);
    // The artifact's patch is the change as a whole, which no longer holds it.
    expect(scan.patch).not.toContain(SECRET);
  });

  it('finds a secret that a merge commit itself brings in', async () => {
    const { root, base } = repository({ 'a.txt': 'x\n' });
    git(root, 'checkout', '-q', '-b', 'side');
    commit(root, { 'side.txt': 'side\n' }, 'side');
    git(root, 'checkout', '-q', 'main');
    commit(root, { 'a.txt': 'y\n' }, 'main');
    git(root, 'merge', '-q', '--no-commit', 'side');
    const merge = commit(root, { 'evil.txt': `${SECRET}\n` }, 'merge side');
    const scan = await scanPush(createGit(root, {}), {
      base,
      head: merge,
      branch: 'b',
      secrets: SECRETS,
    });
    const short = git(root, 'rev-parse', '--short', merge);
    expect(scan.findings).toEqual([`evil.txt line 1 in commit ${short}: a secret of this run`]);
  });

  it('finds a secret in the name of a file renamed as it was, or created empty', async () => {
    const { root, base } = repository({ 'a.txt': 'x\n' });
    git(root, 'mv', 'a.txt', `${SECRET}.txt`);
    write(root, { [`empty-${[...SECRET].reverse().join('')}`]: '' });
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'rename');
    const scan = await scanPush(createGit(root, {}), {
      base,
      head: git(root, 'rev-parse', 'HEAD'),
      branch: 'b',
      secrets: SECRETS,
    });
    expect(scan.findings).toEqual([
      `the name of empty-${[...SECRET].reverse().join('')}: a secret of this run (reversed)`,
      `the name of ${SECRET}.txt: a secret of this run`,
    ]);
  });

  it('finds a secret in the branch name and in the message of a commit the agent made', async () => {
    const { root, base } = repository({ 'a.txt': 'x\n' });
    const head = commit(root, { 'a.txt': 'y\n' }, `subject\n\nbody with ${SECRET}`);
    const short = git(root, 'rev-parse', '--short', head);
    const scan = await scanPush(createGit(root, {}), {
      base,
      head,
      branch: `ci-agent/${Buffer.from(SECRET).toString('base64').replace(/=/g, '')}`,
      secrets: SECRETS,
    });
    expect(scan.findings).toEqual([
      'the branch name: a secret of this run (base64)',
      `the message of commit ${short}: a secret of this run`,
    ]);
  });
});
