/**
 * Masks an NDJSON file (the tool log, the transcript) again, in place, with a masker that knows
 * more than the one it was written with: the push scan (github/push-scan.ts) finds credentials
 * the run never knew in what the agent wrote, after those lines went out. Each line is parsed and
 * its strings masked, so that the file stays valid JSON whatever a value contains; a line that is
 * not JSON is masked as text.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { SecretMasker } from './secret-masker.js';

export function redactNdjsonFile(path: string, masker: SecretMasker): void {
  if (!existsSync(path)) return;
  const lines = readFileSync(path, 'utf8').split('\n');
  const masked = lines.map((line) => {
    if (line.trim() === '') return line;
    try {
      return JSON.stringify(masker.maskJson(JSON.parse(line) as object));
    } catch {
      return masker.mask(line);
    }
  });
  writeFileSync(path, masked.join('\n'));
}
