import { describe, expect, it } from 'vitest';
import { sandboxBrokeEveryCall } from '../../src/github/run-sandbox.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';

function withStats(stats: ReturnType<Sandbox['stats']>): Sandbox {
  return { stats: () => stats } as unknown as Sandbox;
}

describe('sandboxBrokeEveryCall', () => {
  it('says so when the sandbox could set up none of the commands the agent ran', () => {
    const broken = sandboxBrokeEveryCall(
      withStats({
        commands: 3,
        checked: 3,
        setupFailures: 3,
        lastFailure: "bwrap: Can't mount proc",
      }),
    );
    expect(broken).toBe(
      "the sandbox could not set up any of the 3 commands the agent ran (bwrap: Can't mount proc), so nothing the agent tried ran",
    );
  });

  it('stays quiet when one command ran, when none was checked, and without a sandbox', () => {
    expect(
      sandboxBrokeEveryCall(withStats({ commands: 3, checked: 3, setupFailures: 2 })),
    ).toBeUndefined();
    expect(
      sandboxBrokeEveryCall(withStats({ commands: 1, checked: 0, setupFailures: 0 })),
    ).toBeUndefined();
    expect(sandboxBrokeEveryCall(undefined)).toBeUndefined();
  });
});
