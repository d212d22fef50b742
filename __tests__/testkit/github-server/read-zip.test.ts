import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readZip } from '../../../testkit/github-server/read-zip.js';
import { zipOf } from './zip-fixture.js';

const TEXT = 'line one\nline two — ünïcode\n'.repeat(50);

function asText(files: Map<string, Buffer>): Record<string, string> {
  return Object.fromEntries([...files].map(([path, content]) => [path, content.toString('utf8')]));
}

/** The offset of the first central directory entry's field at `field`. */
function centralField(archive: Buffer, field: number): number {
  return archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + field;
}

describe('readZip', () => {
  it('reads deflated files, nested paths included, and leaves directories out', async () => {
    const archive = await zipOf({ 'a.txt': TEXT, 'deep/er/b.md': '# B\n', 'empty.txt': '' });
    expect(asText(readZip(archive))).toEqual({
      'a.txt': TEXT,
      'deep/er/b.md': '# B\n',
      'empty.txt': '',
    });
  });

  it('reads stored files byte for byte', async () => {
    const bytes = randomBytes(4096);
    const archive = await zipOf({ 'noise.bin': bytes }, { store: true });
    expect(readZip(archive).get('noise.bin')?.equals(bytes)).toBe(true);
  });

  describe('when the archive is not one it can read', () => {
    it('refuses bytes with no end of central directory record', () => {
      expect(() => readZip(Buffer.from('plain text'))).toThrow(/not a zip archive/);
      expect(() => readZip(Buffer.alloc(0))).toThrow(/not a zip archive/);
    });

    it('refuses an entry whose content does not match its CRC-32', async () => {
      const archive = await zipOf({ 'a.txt': 'hello' }, { store: true });
      const data = archive.indexOf('hello');
      archive[data] = 'j'.charCodeAt(0);
      expect(() => readZip(archive)).toThrow(/the zip entry a\.txt is corrupt/);
    });

    it('refuses a compression method other than stored or deflated', async () => {
      const archive = await zipOf({ 'a.txt': 'hello' });
      archive.writeUInt16LE(14, centralField(archive, 10));
      expect(() => readZip(archive)).toThrow(/uses compression method 14; expected 0 or 8/);
    });

    it('refuses an entry whose local header is not where the directory says', async () => {
      const archive = await zipOf({ 'a.txt': 'hello' });
      archive.writeUInt32LE(7, centralField(archive, 42));
      expect(() => readZip(archive)).toThrow(/the local header of a\.txt is missing at byte 7/);
    });

    it('refuses ZIP64 archives', async () => {
      const archive = await zipOf({ 'a.txt': 'hello' });
      const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
      archive.writeUInt32LE(0xffffffff, end + 16);
      expect(() => readZip(archive)).toThrow(/ZIP64/);
    });
  });
});
