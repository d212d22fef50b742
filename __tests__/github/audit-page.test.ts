/**
 * The artifact's audit.html, written from the files in a real temporary directory.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAuditPage } from '../../src/github/audit-page.js';

let dir: string;
let paths: { log: string; diff: string; html: string };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-agent-audit-page-'));
  paths = {
    log: join(dir, 'tool-log.jsonl'),
    diff: join(dir, 'changes.patch'),
    html: join(dir, 'audit.html'),
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const assistant = {
  type: 'assistant',
  message: { content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
};

describe('writeAuditPage', () => {
  it('renders the log and the patch, a line that is not JSON reported with its number', () => {
    writeFileSync(paths.log, `${JSON.stringify(assistant)}\n{cut off\n`);
    writeFileSync(paths.diff, '+added <b>line</b>\n');
    expect(writeAuditPage(paths, 'ci-agent run 7')).toBeUndefined();
    const page = readFileSync(paths.html, 'utf8');
    expect(page).toContain('<title>ci-agent run 7</title>');
    expect(page).toContain('log-line-malformed');
    expect(page).toContain('line 2: not a JSON object');
    expect(page).toContain('+added &lt;b&gt;line&lt;/b&gt;');
    expect(page.match(/<li id="call-\d+"/g)).toHaveLength(1);
  });

  it('writes nothing when there is no log', () => {
    expect(writeAuditPage(paths, 'x')).toBeUndefined();
    expect(existsSync(paths.html)).toBe(false);
  });

  it('says so, without throwing, when the page cannot be written', () => {
    writeFileSync(paths.log, `${JSON.stringify(assistant)}\n`);
    mkdirSync(paths.html); // a directory where the file should go
    expect(writeAuditPage(paths, 'x')).toMatch(
      /^the audit page could not be written \(.*EISDIR.*\); the tool log is in the artifact$/,
    );
  });
});
