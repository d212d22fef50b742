import { describe, expect, it } from 'vitest';
import { sandboxBrokeEveryCall } from '../../src/github/run-sandbox.js';
import { judgesRemovedNote } from '../../src/sandbox/absent-judges.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';

function withStats(stats: ReturnType<Sandbox['stats']>): Sandbox {
  return { stats: () => stats, sweepJudges: () => [] } as unknown as Sandbox;
}

describe('sandboxBrokeEveryCall', () => {
  it('says so when the sandbox could set up none of the commands the agent ran', () => {
    const broken = sandboxBrokeEveryCall(
      withStats({
        commands: 3,
        checked: 3,
        setupFailures: 3,
        lastFailure: "bwrap: Can't mount proc",
        judgesRemoved: [],
      }),
    );
    expect(broken).toBe(
      "the sandbox could not set up any of the 3 commands the agent ran (bwrap: Can't mount proc), so nothing the agent tried ran",
    );
  });

  it('stays quiet when one command ran, when none was checked, and without a sandbox', () => {
    expect(
      sandboxBrokeEveryCall(
        withStats({ commands: 3, checked: 3, setupFailures: 2, judgesRemoved: [] }),
      ),
    ).toBeUndefined();
    expect(
      sandboxBrokeEveryCall(
        withStats({ commands: 1, checked: 0, setupFailures: 0, judgesRemoved: [] }),
      ),
    ).toBeUndefined();
    expect(sandboxBrokeEveryCall(undefined)).toBeUndefined();
  });
});

describe('judgesRemovedNote', () => {
  it('names every judge the sandbox removed', () => {
    const note = judgesRemovedNote(
      withStats({
        commands: 2,
        checked: 2,
        setupFailures: 0,
        judgesRemoved: ['.mcp.json', '.github/actions'],
      }),
    );
    expect(note).toBe(
      'the agent created `.mcp.json`, `.github/actions`, where the files that configure and check the run live; the sandbox removed them',
    );
  });

  it('stays quiet when nothing was removed, and without a sandbox', () => {
    const clean = { commands: 1, checked: 1, setupFailures: 0, judgesRemoved: [] };
    expect(judgesRemovedNote(withStats(clean))).toBeUndefined();
    expect(judgesRemovedNote(undefined)).toBeUndefined();
  });
});
