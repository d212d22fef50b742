import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyLogText } from '../../src/audit/verify.js';
import { openToolLog } from '../../src/log/tool-log.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

const workspaces: Workspace[] = [];
afterEach(() => {
  for (const workspace of workspaces.splice(0)) workspace.cleanup();
});

/** A closed log of `count` lines (and the closing one), as its text lines, and its final hash. */
function writtenLog(count: number, sessionId = 'run-1'): { lines: string[]; hash: string } {
  const workspace = makeWorkspace('ci-agent-verify-');
  workspaces.push(workspace);
  const path = workspace.path('tool-log.jsonl');
  const log = openToolLog(path, sessionId);
  for (let index = 1; index <= count; index++) {
    log.write({ type: 'system', subtype: 'test', session_id: sessionId, index });
  }
  log.close();
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.pop();
  return { lines, hash: `sha256:${log.finalHash}` };
}

const text = (lines: readonly string[]) => `${lines.map((line) => `${line}\n`).join('')}`;

describe('verifyLogText', () => {
  it('verifies a closed log, and its final hash against the published one', () => {
    const { lines, hash } = writtenLog(4);
    const verdict = verifyLogText(text(lines), { expectedHash: hash });
    expect(verdict).toMatchObject({ status: 'verified', closed: true, finalHash: hash });
    expect(verdict.records.map((record) => record.line)).toEqual([1, 2, 3, 4, 5]);
    expect(verdict.records[0]?.value).toEqual({
      type: 'system',
      subtype: 'test',
      session_id: 'run-1',
      index: 1,
    });
    // The bare hex form is the same hash.
    expect(verifyLogText(text(lines), { expectedHash: hash.slice(7) }).status).toBe('verified');
  });

  describe('when the log was tampered with', () => {
    it('names an edited line', () => {
      const { lines, hash } = writtenLog(4);
      lines[2] = lines[2]!.replace('"index":3', '"index":33');
      const verdict = verifyLogText(text(lines), { expectedHash: hash });
      expect(verdict.status).toBe('failed');
      expect(verdict.failure).toMatchObject({ code: 'chain-broken', kind: 'edited', line: 3 });
      expect(verdict.records).toHaveLength(2);
    });

    it('names an edit of the session id on the first line', () => {
      const { lines } = writtenLog(2);
      lines[0] = lines[0]!.replace('"session_id":"run-1","hash"', '"session_id":"run-2","hash"');
      expect(verifyLogText(text(lines)).failure).toMatchObject({ kind: 'edited', line: 1 });
    });

    it('names the line after a removed one', () => {
      const { lines } = writtenLog(4);
      lines.splice(1, 1);
      expect(verifyLogText(text(lines)).failure).toMatchObject({
        code: 'chain-broken',
        kind: 'removed',
        line: 2,
      });
      const first = writtenLog(3).lines.slice(1);
      expect(verifyLogText(text(first)).failure).toMatchObject({ kind: 'removed', line: 1 });
    });

    it('names the first of two swapped lines', () => {
      const { lines } = writtenLog(4);
      [lines[1], lines[2]] = [lines[2]!, lines[1]!];
      expect(verifyLogText(text(lines)).failure).toMatchObject({ kind: 'reordered', line: 2 });
    });

    it('names a copied line', () => {
      const { lines } = writtenLog(3);
      lines.splice(2, 0, lines[1]!);
      expect(verifyLogText(text(lines)).failure).toMatchObject({ kind: 'inserted', line: 3 });
    });

    it('calls a cut tail incomplete alone, and truncated against the published hash', () => {
      const { lines, hash } = writtenLog(4);
      const cut = lines.slice(0, 3);
      expect(verifyLogText(text(cut))).toMatchObject({ status: 'incomplete', closed: false });
      expect(verifyLogText(text(cut), { expectedHash: hash }).failure).toMatchObject({
        code: 'truncated',
        line: 4,
      });
      expect(verifyLogText('', { expectedHash: hash }).failure).toMatchObject({
        code: 'truncated',
      });
    });

    it("calls another run's log replaced", () => {
      const { hash } = writtenLog(4, 'run-1');
      const other = writtenLog(4, 'run-2');
      expect(verifyLogText(text(other.lines), { expectedHash: hash }).failure).toMatchObject({
        code: 'replaced',
        kind: 'replaced',
      });
      expect(
        verifyLogText(text(other.lines), { expectedSessionId: 'run-1' }).failure,
      ).toMatchObject({ code: 'replaced' });
    });

    it('names a line that is not JSON, and a log that has no chain', () => {
      const { lines } = writtenLog(3);
      lines[1] = 'not json';
      expect(verifyLogText(text(lines)).failure).toMatchObject({ code: 'chain-broken', line: 2 });
      const plain = `${JSON.stringify({ type: 'system', subtype: 'init' })}\n`;
      expect(verifyLogText(plain).failure).toMatchObject({ code: 'not-chained', line: 1 });
    });
  });

  describe('when the run was killed', () => {
    it('verifies up to the last whole line and says the log is incomplete', () => {
      const { lines } = writtenLog(4);
      const killed = `${text(lines.slice(0, 3))}${lines[3]!.slice(0, 20)}`;
      const verdict = verifyLogText(killed);
      expect(verdict).toMatchObject({ status: 'incomplete', partialLine: 4 });
      expect(verdict.failure).toBeUndefined();
      expect(verdict.records).toHaveLength(3);
    });
  });
});
