/**
 * Reading a file the agent may have put in place, without hanging on it. A tool's Read, Edit or
 * search runs in the controller, and the agent's own commands can put a FIFO where a file was
 * (`mkfifo`, no privilege needed), or name a device (`/dev/zero`, `/dev/stdin`): opened the plain
 * way, a FIFO blocks until someone writes to it (a libuv thread held for good: four of them and
 * every file operation of the run waits), and a device never ends. Here the file is opened with
 * O_NONBLOCK (for a regular file it changes nothing; a FIFO opens at once), its type is taken
 * from the open descriptor (fstat: no swap between a check and the open), and anything that is
 * not a regular file is refused with an error that says what it is.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

const { O_RDONLY, O_NONBLOCK } = constants;

export class NotARegularFile extends Error {
  override readonly name = 'NotARegularFile';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
  }
}

/** What a non-regular file is, in words. */
export function describeKind(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a file';
}

/** The open file and its stat; throws NotARegularFile (closed first) for anything else. */
export async function openRegularFile(path: string): Promise<{ handle: FileHandle; info: Stats }> {
  const handle = await open(path, O_RDONLY | O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotARegularFile(path, describeKind(info));
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The whole of a regular file, as readFile gives it; refuses anything else. */
export async function readRegularFile(path: string): Promise<Buffer>;
export async function readRegularFile(path: string, encoding: 'utf8'): Promise<string>;
export async function readRegularFile(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const { handle } = await openRegularFile(path);
  try {
    return encoding ? await handle.readFile({ encoding }) : await handle.readFile();
  } finally {
    await handle.close();
  }
}
