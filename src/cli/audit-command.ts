/**
 * `ci-agent audit <artifact.zip | folder | log.jsonl>`: reads a run's files (audit/source.ts),
 * verifies the tool log's chain and the attestation (audit/audit.ts) and prints the result.
 * Exit codes (AUDIT_EXIT_CODES): 0 verified and clean, 1 findings, 2 the log fails verification
 * or cannot be read — a usage error too, since nothing was verified.
 */
import { Command, CommanderError, Option } from 'commander';
import { resolve } from 'node:path';
import { auditSource } from '../audit/audit.js';
import { renderAuditJson, renderAuditText } from '../audit/audit-text.js';
import { AuditSourceError, readAuditSource } from '../audit/source.js';
import { errorMessage } from '../util/errors.js';

/** The formats the audit prints; each has its renderer in AUDIT_RENDERERS. */
export const AUDIT_FORMATS = ['text', 'json'] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

export const AUDIT_EXIT_CODES: readonly (readonly [number, string])[] = [
  [0, 'the log verifies and nothing is to report'],
  [1, 'the log verifies, with findings (e.g. incomplete: the run was killed)'],
  [2, 'the log fails verification, or it cannot be read, or a usage error'],
];

const AUDIT_RENDERERS: Record<AuditFormat, typeof renderAuditText> = {
  text: renderAuditText,
  json: renderAuditJson,
};

const HASH = /^(sha256:)?[0-9a-fA-F]{64}$/;

export interface AuditIo {
  argv: readonly string[];
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface AuditSettings {
  path: string;
  format: AuditFormat;
  expectHash: string | undefined;
}

/** `argv` without the leading `audit`. */
export function runAuditCommand(io: AuditIo): number {
  let settings: AuditSettings | 'exit';
  try {
    settings = parseAuditArgs(io.argv, io.stdout);
  } catch (error) {
    io.stderr(`Error: ${errorMessage(error)}\n`);
    return 2;
  }
  if (settings === 'exit') return 0;
  let source;
  try {
    source = readAuditSource(resolve(io.cwd, settings.path));
  } catch (error) {
    if (!(error instanceof AuditSourceError)) throw error;
    io.stderr(`Error: ${error.message}\n`);
    return 2;
  }
  const result = auditSource(source, {
    ...(settings.expectHash !== undefined && { expectHash: settings.expectHash }),
  });
  io.stdout(AUDIT_RENDERERS[settings.format](result));
  return result.exitCode;
}

function parseAuditArgs(
  argv: readonly string[],
  writeOut: (text: string) => void,
): AuditSettings | 'exit' {
  const program = new Command('ci-agent audit')
    .description(
      "Verify a run's tool log: its hash chain, the final hash the run published, its attestation.",
    )
    .argument('<source>', "the run's artifact (.zip), its unpacked folder, or a tool log (.jsonl)")
    .addOption(
      new Option('--format <format>', 'output format').choices(AUDIT_FORMATS).default('text'),
    )
    .option(
      '--expect-hash <hash>',
      'the final hash the run published (its log-hash output, report or job summary): sha256:<64 hex>',
    )
    .addHelpText(
      'after',
      [
        '',
        'Exit codes:',
        ...AUDIT_EXIT_CODES.map(([code, what]) => `  ${code}  ${what}`),
        '',
        'Finding codes: docs/AUDIT.md',
        '',
      ].join('\n'),
    )
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut })
    .allowExcessArguments(false);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed') return 'exit';
      throw new Error(`ci-agent audit: ${error.message.replace(/^error: /, '')}`);
    }
    throw error;
  }
  const options = program.opts<{ format: AuditFormat; expectHash?: string }>();
  if (options.expectHash !== undefined && !HASH.test(options.expectHash.trim())) {
    throw new Error(
      `--expect-hash must be sha256:<64 hex digits> (the run's log-hash output), got ${JSON.stringify(options.expectHash)}`,
    );
  }
  return { path: program.args[0]!, format: options.format, expectHash: options.expectHash?.trim() };
}
