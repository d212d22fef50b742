import { describe, expect, it } from 'vitest';
import { buildMountPlan, mountArguments } from '../../src/sandbox/mount-plan.js';

const base = {
  workspaceRoots: ['/home/runner/work/repo/repo'],
  privateTmp: '/tmp/ci-agent-sandbox-x/tmp',
  home: '/home/runner',
  hidden: ['/home/runner/work/_temp', '/run'],
  readable: ['/home/runner/.cargo/bin'],
  writable: ['/home/runner/.npm'],
  readOnly: ['/home/runner/work/repo/repo/.git/config', '/etc/passwd'],
};

describe('buildMountPlan', () => {
  it('mounts in order: root read-only, own /dev and /proc, hidden, /tmp, readable, writable, pinned, read-only again', () => {
    const args = mountArguments(buildMountPlan(base).mounts);
    expect(args.join(' ')).toBe(
      [
        '--ro-bind / /',
        '--dev /dev',
        '--proc /proc',
        // Outer folders first (a hidden folder's mount point goes into the one around it).
        '--tmpfs /run',
        '--tmpfs /home/runner',
        '--tmpfs /home/runner/work/_temp',
        '--bind /tmp/ci-agent-sandbox-x/tmp /tmp',
        '--ro-bind /home/runner/.cargo/bin /home/runner/.cargo/bin',
        '--bind /home/runner/work/repo/repo /home/runner/work/repo/repo',
        '--bind /home/runner/.npm /home/runner/.npm',
        // The folder on the way to a read-only path: a mount point, so it cannot be moved aside.
        '--bind /home/runner/work/repo/repo/.git /home/runner/work/repo/repo/.git',
        '--ro-bind /home/runner/work/repo/repo/.git/config /home/runner/work/repo/repo/.git/config',
        // Made read-only last, once the mounts inside them exist; the home stays a scratch.
        '--remount-ro /run',
        '--remount-ro /home/runner/work/_temp',
      ].join(' '),
    );
  });

  it("mounts the runner's work folder before its temp folder inside it (GitHub-hosted layout)", () => {
    // RUNNER_TEMP=/home/runner/work/_temp is found before the work folder (RUNNER_WORKSPACE's
    // parent): mounted in that order, the work folder's tmpfs covered the temp folder's mount
    // point and `--remount-ro` of it failed, so the sandbox could not start on such a runner.
    const args = mountArguments(
      buildMountPlan({ ...base, hidden: ['/home/runner/work/_temp', '/home/runner/work'] }).mounts,
    );
    const at = (target: string) => args.join(' ').indexOf(`--tmpfs ${target} `);
    expect(at('/home/runner/work')).toBeGreaterThan(at('/home/runner'));
    expect(at('/home/runner/work/_temp')).toBeGreaterThan(at('/home/runner/work'));
    expect(args.join(' ')).toContain(
      '--remount-ro /home/runner/work --remount-ro /home/runner/work/_temp',
    );
  });

  describe('when a read-only path lies several folders deep', () => {
    const repo = '/home/runner/work/repo/repo';
    const plan = buildMountPlan({
      ...base,
      readOnly: [
        `${repo}/.github/workflows`,
        `${repo}/tools/hooks/check.sh`,
        `${repo}/.git/config`,
      ],
    });
    const args = mountArguments(plan.mounts);
    const at = (flag: string, path: string) =>
      args.findIndex((arg, index) => arg === flag && args[index + 2] === path);

    it('pins every folder between the workspace and it, parents before children, before it', () => {
      for (const folder of ['.github', '.git', 'tools', 'tools/hooks'])
        expect(at('--bind', `${repo}/${folder}`), folder).toBeGreaterThan(at('--bind', repo));
      expect(at('--bind', `${repo}/tools`)).toBeLessThan(at('--bind', `${repo}/tools/hooks`));
      expect(at('--bind', `${repo}/tools/hooks`)).toBeLessThan(
        at('--ro-bind', `${repo}/tools/hooks/check.sh`),
      );
      expect(at('--bind', `${repo}/.github`)).toBeLessThan(
        at('--ro-bind', `${repo}/.github/workflows`),
      );
    });

    it('keeps the pinned folders writable, and neither the root nor anything above it pinned', () => {
      expect(plan.isWritable(`${repo}/.github/dependabot.yml`)).toBe(true);
      expect(plan.isWritable(`${repo}/.git/objects/ab/cdef`)).toBe(true);
      expect(plan.isWritable(`${repo}/.github/workflows/ci.yml`)).toBe(false);
      expect(args.filter((arg) => arg === repo)).toHaveLength(2);
      expect(args).not.toContain('/home/runner/work/repo');
    });
  });

  it('leaves out a read-only path outside every writable place (it is read-only already)', () => {
    const args = mountArguments(buildMountPlan(base).mounts).join(' ');
    expect(args).not.toContain('/etc/passwd');
  });

  it('hides nothing under /tmp, which the sandbox sees only as its private folder', () => {
    const args = mountArguments(
      buildMountPlan({ ...base, hidden: ['/tmp/runner-temp', '/run'] }).mounts,
    ).join(' ');
    expect(args).not.toContain('/tmp/runner-temp');
  });

  it('hides again what is hidden inside the workspace', () => {
    const inside = '/home/runner/work/repo/repo/_temp';
    const args = mountArguments(buildMountPlan({ ...base, hidden: [inside] }).mounts);
    expect(args.lastIndexOf(`--tmpfs`)).toBeGreaterThan(
      args.indexOf('/home/runner/work/repo/repo'),
    );
    expect(args.slice(-2)).toEqual(['--remount-ro', inside]);
  });

  describe('the view the file tools are held to', () => {
    const plan = buildMountPlan(base);
    it.each([
      ['/proc/1/environ', true],
      ['/sys/kernel/x', true],
      ['/home/runner/.git-credentials', true],
      ['/home/runner/work/_temp/_runner_file_commands/set_env_1', true],
      ['/run/docker.sock', true],
      ['/tmp/elsewhere', true],
      ['/tmp/ci-agent-sandbox-x/tmp/note', false],
      ['/home/runner/.cargo/bin/cargo', false],
      ['/home/runner/work/repo/repo/src/a.ts', false],
      ['/usr/bin/node', false],
    ])('%s hidden: %s', (path, hidden) => {
      expect(plan.isHidden(path)).toBe(hidden);
    });
    it.each([
      ['/home/runner/work/repo/repo/src/a.ts', true],
      ['/home/runner/.npm/_cacache/x', true],
      ['/tmp/ci-agent-sandbox-x/tmp/note', true],
      ['/home/runner/work/repo/repo/.git/config', false],
      ['/home/runner/.cargo/bin/cargo', false],
      ['/usr/bin/node', false],
      ['/home/runner/.bashrc', false],
    ])('%s writable: %s', (path, writable) => {
      expect(plan.isWritable(path)).toBe(writable);
    });
    it('maps the sandbox /tmp to the private folder', () => {
      expect(plan.hostPath('/tmp/out.log')).toBe('/tmp/ci-agent-sandbox-x/tmp/out.log');
      expect(plan.hostPath('/home/runner/work/repo/repo/a')).toBe('/home/runner/work/repo/repo/a');
    });
  });
});

describe('buildMountPlan: hidden files', () => {
  const creds = '/home/runner/work/repo/repo/gha-creds-1a2b3c.json';

  it('binds /dev/null over a credential file in the workspace, after the workspace', () => {
    const plan = buildMountPlan({ ...base, hiddenFiles: [creds] });
    const args = mountArguments(plan.mounts).join(' ');
    expect(args).toContain(`--ro-bind /dev/null ${creds}`);
    expect(args.indexOf(`--ro-bind /dev/null ${creds}`)).toBeGreaterThan(
      args.indexOf('--bind /home/runner/work/repo/repo /home/runner/work/repo/repo'),
    );
    expect(plan.isHidden(creds)).toBe(true);
    expect(plan.isWritable(creds)).toBe(false);
    expect(plan.isHidden('/home/runner/work/repo/repo/package.json')).toBe(false);
  });

  it('binds nothing over a file already out of sight (under the hidden home or /tmp)', () => {
    const hiddenAlready = ['/home/runner/creds.json', '/tmp/creds.json'];
    const plan = buildMountPlan({ ...base, hiddenFiles: hiddenAlready });
    expect(mountArguments(plan.mounts).join(' ')).not.toContain('/dev/null');
    for (const file of hiddenAlready) expect(plan.isHidden(file)).toBe(true);
  });

  it('hides a file the read-only root would show', () => {
    const plan = buildMountPlan({ ...base, hiddenFiles: ['/opt/keys/sa.json'] });
    expect(mountArguments(plan.mounts).join(' ')).toContain(
      '--ro-bind /dev/null /opt/keys/sa.json',
    );
    expect(plan.isHidden('/opt/keys/sa.json')).toBe(true);
  });
});
