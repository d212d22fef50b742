/**
 * Reads a whole zip archive from memory, as the artifact client's `archiver` writes one: the end
 * of central directory record, then each central directory entry, then its local header and data
 * (stored or deflated), checked against the entry's CRC-32.
 *
 * Written here rather than taken from `unzip-stream` (which @actions/artifact uses to download):
 * that package is not a dependency of ours, only of theirs, and the fake ships in the demo bundle.
 * Nor from `fflate`: its unzipSync checks neither the CRC-32 nor the header signatures, so a
 * corrupt stored entry, a local header that is not where the directory says and a broken ZIP64
 * offset all come back as content or nothing, without an error.
 * The central directory is read, not the local headers, because a streamed archive writes sizes
 * only after the data (general purpose flag bit 3). ZIP64 archives are refused: artifacts here are
 * a few files far below 4 GiB.
 */
import { crc32, inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** The fixed part of the end record plus the longest comment it may carry. */
const END_RECORD_SEARCH = 22 + 0xffff;

/** Every file of the archive by its path inside it; directories are left out. */
export function readZip(archive: Buffer): Map<string, Buffer> {
  const end = findEndRecord(archive);
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) {
    throw new Error('the zip archive is ZIP64, which this reader does not support');
  }
  const files = new Map<string, Buffer>();
  for (let entry = 0; entry < count; entry++) {
    expectSignature(archive, offset, CENTRAL_DIRECTORY_ENTRY, `central directory entry ${entry}`);
    const method = archive.readUInt16LE(offset + 10);
    const crc = archive.readUInt32LE(offset + 16);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const size = archive.readUInt32LE(offset + 24);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localOffset = archive.readUInt32LE(offset + 42);
    const name = archive.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;

    expectSignature(archive, localOffset, LOCAL_FILE_HEADER, `the local header of ${name}`);
    const dataStart =
      localOffset +
      30 +
      archive.readUInt16LE(localOffset + 26) +
      archive.readUInt16LE(localOffset + 28);
    const data = archive.subarray(dataStart, dataStart + compressedSize);
    if (data.length !== compressedSize) throw new Error(`the zip entry ${name} is truncated`);
    const content = inflate(data, method, name);
    if (content.length !== size || crc32(content) !== crc) {
      throw new Error(
        `the zip entry ${name} is corrupt: expected ${size} bytes with CRC-32 ${crc}, got ${content.length} bytes with CRC-32 ${crc32(content)}`,
      );
    }
    files.set(name, content);
  }
  return files;
}

function findEndRecord(archive: Buffer): number {
  const lowest = Math.max(0, archive.length - END_RECORD_SEARCH);
  for (let offset = archive.length - 22; offset >= lowest; offset--) {
    if (archive.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new Error(
    `not a zip archive: no end of central directory record in ${archive.length} bytes`,
  );
}

function expectSignature(archive: Buffer, offset: number, signature: number, what: string): void {
  if (offset + 4 > archive.length || archive.readUInt32LE(offset) !== signature) {
    throw new Error(`the zip archive is corrupt: ${what} is missing at byte ${offset}`);
  }
}

function inflate(data: Buffer, method: number, name: string): Buffer {
  if (method === STORED) return Buffer.from(data);
  if (method === DEFLATED) return inflateRawSync(data);
  throw new Error(`the zip entry ${name} uses compression method ${method}; expected 0 or 8`);
}
