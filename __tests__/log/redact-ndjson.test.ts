import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { redactNdjsonFile } from '../../src/log/redact-ndjson.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('redactNdjsonFile', () => {
  it('masks every line again and keeps each one valid JSON, whatever the value holds', () => {
    dir = mkdtempSync(join(tmpdir(), 'ci-agent-redact-'));
    const file = join(dir, 'tool-log.jsonl');
    const found = 'found"value\\with-quotes';
    const lines = [
      { type: 'user', text: `wrote ${found} to a file` },
      { type: 'result', nested: { [found]: [found] } },
    ];
    writeFileSync(
      file,
      `${lines.map((line) => JSON.stringify(line)).join('\n')}\nnot json ${found}\n`,
    );
    redactNdjsonFile(file, createSecretMasker([found]));
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('found"value');
    expect(text).not.toContain('found\\"value');
    const rows = text.split('\n');
    expect(JSON.parse(rows[0]!)).toEqual({ type: 'user', text: 'wrote *** to a file' });
    expect(JSON.parse(rows[1]!)).toEqual({ type: 'result', nested: { '***': ['***'] } });
    expect(rows.slice(2)).toEqual(['not json ***', '']);
  });

  it('leaves a missing file missing', () => {
    expect(() =>
      redactNdjsonFile('/nonexistent/ci-agent/x.jsonl', createSecretMasker([])),
    ).not.toThrow();
  });
});
