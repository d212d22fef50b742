/**
 * The artifact's attestation (input `attest`): a SLSA provenance statement naming each of the
 * run's files with its sha256 — the tool log, the transcript, the patch — signed by Sigstore
 * with the job's OIDC identity and stored with GitHub's attestations API, by @actions/attest.
 * The bundle goes into the artifact as attestation.sigstore.json, where `ci-agent audit` finds
 * it (audit/attestation.ts).
 *
 * Best effort, and said either way: the job must grant `id-token: write` (the runner then sets
 * ACTIONS_ID_TOKEN_REQUEST_URL) and `attestations: write`, and Sigstore (Fulcio, Rekor or
 * GitHub's timestamp authority) must answer. A run that cannot attest keeps its outcome; the
 * report and a warning say why it is not attested. report.md is not a subject: it says whether
 * the others are, so it is written after.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ATTESTATION_FILE } from '../audit/artifact-names.js';
import { errorMessage } from '../util/errors.js';
import { withRunnerEnv } from './runner-env.js';

export type AttestOutcome =
  | { attested: true; path: string; subjects: string[]; attestationId: string | undefined }
  | { attested: false; reason: string };

export async function attestFiles(
  files: readonly string[],
  dir: string,
  token: string,
  env: NodeJS.ProcessEnv,
): Promise<AttestOutcome> {
  if (!env.ACTIONS_ID_TOKEN_REQUEST_URL || !env.ACTIONS_ID_TOKEN_REQUEST_TOKEN) {
    return {
      attested: false,
      reason:
        'the job has no OIDC token to sign with: grant `permissions: id-token: write` (and `attestations: write`)',
    };
  }
  const subjects = files
    .filter((path) => existsSync(path))
    .map((path) => ({
      name: basename(path),
      digest: { sha256: createHash('sha256').update(readFileSync(path)).digest('hex') },
    }));
  try {
    // Imported on demand: Sigstore's client is large, and most runs never attest.
    const { attestProvenance } = await import('@actions/attest');
    // The package reads the token variables, the event and GITHUB_API_URL from process.env.
    const attestation = await withRunnerEnv(env, () => attestProvenance({ subjects, token }));
    const path = join(dir, ATTESTATION_FILE);
    writeFileSync(path, `${JSON.stringify(attestation.bundle)}\n`);
    return {
      attested: true,
      path,
      subjects: subjects.map((subject) => subject.name),
      attestationId: attestation.attestationID,
    };
  } catch (error) {
    return { attested: false, reason: `attesting failed: ${errorMessage(error)}` };
  }
}
