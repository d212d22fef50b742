/**
 * The artifact's attestation (attestation.sigstore.json, written by the action when it could
 * attest: github/attest-artifact.ts): a Sigstore bundle whose DSSE envelope carries an in-toto
 * statement naming each file of the artifact with its sha256. What can be checked here, offline,
 * is that the statement names the files as they are now — the tool log among them. The bundle's
 * signature and certificate chain need Sigstore's trust root, which is fetched over the network:
 * that is `gh attestation verify`'s job, and the result says so rather than claiming it.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';

export type AttestationCheck =
  | { status: 'not-attested'; message: string }
  | { status: 'subjects-match'; message: string; subjects: string[] }
  | { status: 'mismatch' | 'unreadable'; message: string };

const bundleSchema = z.object({
  dsseEnvelope: z.object({
    payload: z.string(),
    payloadType: z.literal('application/vnd.in-toto+json'),
  }),
});
const statementSchema = z.object({
  subject: z.array(z.object({ name: z.string(), digest: z.record(z.string(), z.string()) })).min(1),
});

export function checkAttestation(
  bundleText: string | undefined,
  files: ReadonlyMap<string, Uint8Array>,
  logName: string,
  bundleName: string,
): AttestationCheck {
  if (bundleText === undefined) {
    return { status: 'not-attested', message: `the artifact has no ${bundleName}` };
  }
  const statement = readStatement(bundleText);
  if (typeof statement === 'string') {
    return { status: 'unreadable', message: `${bundleName} ${statement}` };
  }
  const problems: string[] = [];
  for (const subject of statement.subject) {
    const content = files.get(subject.name);
    const expected = subject.digest.sha256;
    if (content === undefined)
      problems.push(`it names ${JSON.stringify(subject.name)}, which the artifact lacks`);
    else if (expected !== createHash('sha256').update(content).digest('hex'))
      problems.push(`${JSON.stringify(subject.name)} is not the file it attested (sha256 differs)`);
  }
  const names = statement.subject.map((subject) => subject.name);
  if (!names.includes(logName)) problems.push(`it does not name the tool log ${logName}`);
  if (problems.length > 0) {
    return { status: 'mismatch', message: `${bundleName} does not match: ${problems.join('; ')}` };
  }
  return {
    status: 'subjects-match',
    subjects: names,
    message: `attested: ${bundleName} names ${names.join(', ')} with their sha256, as they are; its Sigstore signature is not checked offline (gh attestation verify checks it)`,
  };
}

function readStatement(text: string): z.infer<typeof statementSchema> | string {
  let bundle;
  try {
    bundle = bundleSchema.parse(JSON.parse(text));
  } catch {
    return 'is not a Sigstore bundle with a DSSE envelope of an in-toto statement';
  }
  try {
    const payload = Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8');
    return statementSchema.parse(JSON.parse(payload));
  } catch {
    return 'has a DSSE payload that is not an in-toto statement with subjects (name, digest)';
  }
}
