import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  apparmorProfile,
  apparmorRestrictsUserNamespaces,
  diagnoseProbe,
  explainProbeFailure,
  prepareHostedRunner,
} from '../../src/sandbox/host-setup.js';

describe('diagnoseProbe', () => {
  it.each([
    // What bubblewrap prints on ubuntu-24.04 runners (AppArmor's restriction on).
    ['bwrap: setting up uid map: Permission denied', true, 'apparmor-userns'],
    ['bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted', true, 'apparmor-userns'],
    // A container whose seccomp profile refuses namespaces, or max_user_namespaces=0.
    [
      'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.',
      false,
      'namespaces-refused',
    ],
    ['bwrap: Creating new namespace failed: Operation not permitted', false, 'namespaces-refused'],
    ["bwrap: Can't find source path /nope: No such file or directory", true, 'other'],
  ] as const)('%s (restriction %s) → %s', (message, restricts, diagnosis) => {
    expect(diagnoseProbe(message, restricts)).toBe(diagnosis);
  });
});

describe('explainProbeFailure', () => {
  it('quotes what bubblewrap said and gives a fix that names the way out', () => {
    const error = explainProbeFailure(
      "bwrap: Can't find source path /nope: No such file or directory",
    );
    expect(error.reason).toContain("Can't find source path /nope");
    expect(error.fix).toContain('sandbox: off');
    expect(error.message).toMatch(/^the sandbox cannot start: .*Fix: /);
  });
});

describe('apparmorRestrictsUserNamespaces', () => {
  it('reads the sysctl: 1 restricts, 0 or no file does not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ci-agent-sysctl-'));
    writeFileSync(join(dir, 'on'), '1\n');
    writeFileSync(join(dir, 'off'), '0\n');
    expect(apparmorRestrictsUserNamespaces(join(dir, 'on'))).toBe(true);
    expect(apparmorRestrictsUserNamespaces(join(dir, 'off'))).toBe(false);
    expect(apparmorRestrictsUserNamespaces(join(dir, 'missing'))).toBe(false);
  });
});

describe('apparmorProfile', () => {
  it('grants user namespaces to the bwrap binary alone, as Ubuntu 25.04 ships it', () => {
    expect(apparmorProfile('/usr/bin/bwrap')).toBe(
      'abi <abi/4.0>,\ninclude <tunables/global>\nprofile ci-agent-bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,\n}\n',
    );
  });
});

describe('prepareHostedRunner', () => {
  it('changes nothing on a machine that is not a GitHub-hosted runner', async () => {
    expect(await prepareHostedRunner({ PATH: process.env.PATH }, { socat: true })).toEqual([]);
    expect(
      await prepareHostedRunner(
        { PATH: process.env.PATH, RUNNER_ENVIRONMENT: 'self-hosted' },
        { socat: true },
      ),
    ).toEqual([]);
  });

  it('on a hosted runner with everything in place, does nothing either', async () => {
    // bubblewrap and socat are installed here and AppArmor restricts nothing: no step to take.
    expect(
      await prepareHostedRunner(
        { PATH: process.env.PATH, RUNNER_ENVIRONMENT: 'github-hosted' },
        { socat: true },
      ),
    ).toEqual([]);
  });
});
