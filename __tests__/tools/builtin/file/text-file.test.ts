import { readFile, utimes } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../helpers/tool-harness.js';
import type { Workspace } from '../../../helpers/tool-harness.js';
import {
  decodeText,
  detectLineEnding,
  encodeText,
  looksBinary,
  readHead,
  readTextFile,
  writeTextFile,
} from '../../../../src/tools/builtin/file/text-file.js';

describe('decodeText', () => {
  it('keeps the BOM in raw and strips it from text', () => {
    expect(decodeText(Buffer.from('\uFEFFhi', 'utf8'))).toEqual({
      raw: '\uFEFFhi',
      text: 'hi',
      encoding: 'utf8-bom',
    });
  });

  it('decodes UTF-16 LE with a BOM', () => {
    expect(decodeText(Buffer.from('\uFEFFhi', 'utf16le'))).toMatchObject({
      text: 'hi',
      encoding: 'utf16le',
    });
  });

  it('reads plain UTF-8 as is', () => {
    expect(decodeText(Buffer.from('héllo'))).toEqual({
      raw: 'héllo',
      text: 'héllo',
      encoding: 'utf8',
    });
  });
});

describe('encodeText', () => {
  it('does not double a BOM the text already carries', () => {
    expect(encodeText('\uFEFFx', 'utf8-bom').bytes).toEqual(Buffer.from('\uFEFFx', 'utf8'));
  });
});

describe('detectLineEnding', () => {
  it('picks the ending most lines use', () => {
    expect(detectLineEnding('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(detectLineEnding('a\nb\nc\r\n')).toBe('\n');
    expect(detectLineEnding('no newline')).toBe('\n');
  });
});

describe('looksBinary', () => {
  it('is true for a NUL byte and false for text or UTF-16', () => {
    expect(looksBinary(Buffer.from([0x61, 0x00]))).toBe(true);
    expect(looksBinary(Buffer.from('plain text'))).toBe(false);
    expect(looksBinary(Buffer.from('\uFEFFab', 'utf16le'))).toBe(false);
  });
});

describe('readTextFile and writeTextFile', () => {
  let workspace: Workspace;
  beforeEach(() => {
    workspace = makeWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('records the mtime the file system reports after the write', async () => {
    const path = workspace.path('deep/a.txt');
    const written = await writeTextFile(path, 'x\r\n', 'utf8');
    const file = await readTextFile(path);
    expect(file).toMatchObject({ raw: 'x\r\n', lineEnding: '\r\n', mtimeMs: written.mtimeMs });
  });

  it('returns the mtime on disk when reading', async () => {
    const path = await workspace.write('a.txt', 'x');
    const when = new Date('2020-01-02T03:04:05Z');
    await utimes(path, when, when);
    expect((await readTextFile(path)).mtimeMs).toBe(when.getTime());
  });

  it('writes UTF-16 with its BOM', async () => {
    const path = workspace.path('w.txt');
    await writeTextFile(path, 'é', 'utf16le');
    expect(await readFile(path)).toEqual(Buffer.from('\uFEFFé', 'utf16le'));
  });

  it('reads only the head it is asked for', async () => {
    const path = await workspace.write('a.txt', 'abcdef');
    expect((await readHead(path, 3)).toString()).toBe('abc');
    expect((await readHead(path, 100)).toString()).toBe('abcdef');
  });
});
