/**
 * Zip archives made by Info-ZIP's `zip`, a writer independent of both the artifact client's
 * (`archiver`) and our reader, from a temp directory of files.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

/** `store`: no compression (method 0); otherwise deflate (method 8). Directories get entries too. */
export async function zipOf(
  files: Record<string, string | Buffer>,
  options: { store?: boolean } = {},
): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'ci-agent-zip-'));
  try {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, 'in', path)), { recursive: true });
      await writeFile(join(dir, 'in', path), content);
    }
    await execa(
      'zip',
      ['-r', '-q', '-X', ...(options.store ? ['-0'] : []), join(dir, 'out.zip'), '.'],
      {
        cwd: join(dir, 'in'),
      },
    );
    return await readFile(join(dir, 'out.zip'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
