import { execa } from 'execa';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import { writeTool } from '../../src/tools/builtin/write.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import { SPAWN_LIKE } from '../helpers/spawn-like.js';
import type { Workspace } from '../helpers/tool-harness.js';

/**
 * Another process that keeps changing where `dir` leads, as a test command left running could:
 * - retarget: `dir` is a link, pointed in turn at a directory inside and at outside (atomically);
 * - replace: `dir` is a directory, moved aside for a link to outside and put back.
 * It spends a moment in each state so that a Write can be judged in one and written in the other.
 */
const SWAPPER = String.raw`
const fs = require('node:fs');
const [mode, dir, inside, outside] = process.argv.slice(1);
const pause = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 0.3);
const parked = dir + '.parked', next = dir + '.next';
process.stdout.write('ready\n');
for (let round = 0; ; round++) {
  try {
    if (mode === 'retarget') {
      fs.symlinkSync(round % 2 === 0 ? outside : inside, next);
      fs.renameSync(next, dir);
    } else {
      fs.renameSync(dir, parked);
      fs.symlinkSync(outside, dir);
      pause();
      fs.unlinkSync(dir);
      fs.renameSync(parked, dir);
    }
    pause();
  } catch {
    // A Write made a new directory while ours was away: ours goes back in its place.
    try {
      fs.rmSync(next, { force: true });
      if (fs.existsSync(parked)) {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.renameSync(parked, dir);
      }
    } catch {}
  }
}
`;

const WRITES = 300;

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill();
  await exited;
}

describe('Write while another process swaps a directory on the way for a link to outside', () => {
  let inside: Workspace;
  let outside: Workspace;
  let swapper: ChildProcess | undefined;

  beforeEach(() => {
    inside = makeWorkspace('ci-agent-write-race-');
    outside = makeWorkspace('ci-agent-outside-');
  });
  afterEach(async () => {
    await stop(swapper);
    inside.cleanup();
    outside.cleanup();
  });

  it.each(['retarget', 'replace'])(
    'never lands a file outside (%s)',
    async (mode) => {
      const real = inside.path('real');
      mkdirSync(real);
      const dir = inside.path('d');
      if (mode === 'retarget') symlinkSync(real, dir);
      else mkdirSync(dir);
      swapper = execa(process.execPath, ['-e', SWAPPER, mode, dir, real, outside.root], {
        ...SPAWN_LIKE,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await once(swapper.stdout!, 'data');

      const { deps } = makePipeline([writeTool], {
        root: inside.root,
        policy: { mode: 'acceptEdits' },
      });
      const outcomes = { written: [] as string[], refused: 0 };
      for (let index = 0; index < WRITES; index++) {
        const path = inside.path(`d/f-${index}.txt`);
        const outcome = await executeSingleToolUse(
          {
            type: 'tool_use',
            id: `toolu_${index}`,
            name: 'Write',
            input: { file_path: path, content: 'x' },
          },
          deps,
          new AbortController().signal,
        );
        if (outcome.result.is_error) outcomes.refused++;
        else outcomes.written.push(`f-${index}.txt`);
      }
      await stop(swapper);

      expect(readdirSync(outside.root)).toEqual([]);
      // The swapper really ran against the writes: some were judged or caught in its link state.
      expect(outcomes.refused).toBeGreaterThan(0);
      if (mode === 'retarget') {
        // Half the time `d` leads inside: those writes went through, and landed there.
        expect(outcomes.written.length).toBeGreaterThan(0);
        for (const name of outcomes.written)
          expect(existsSync(inside.path(`real/${name}`))).toBe(true);
      }
    },
    30_000,
  );
});
