/**
 * `ci-agent audit [verify | explain | judge] <artifact.zip | folder | log.jsonl>`: reads a run's
 * files (audit/source.ts) and, in order:
 *   1. verifies the tool log's chain and the attestation (audit/audit.ts) — always;
 *   2. `explain`: reads the log back into its calls (audit/records.ts) and finds the denials and
 *      failed hooks (audit/explain.ts);
 *   3. `judge --policy FILE`: decides every recorded call again under that policy
 *      (audit/judge.ts);
 *   4. prints text, JSON or the HTML page (audit/html.ts), to stdout or `--out FILE`.
 * Exit codes (AUDIT_EXIT_CODES): 0 verified and clean, 1 findings, 2 the log fails verification
 * or cannot be read — a usage error and a bad policy file too, since nothing was judged.
 */
import { Command, CommanderError, Option } from 'commander';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { auditSource, exitCodeOf } from '../audit/audit.js';
import type { AuditFinding, AuditResult } from '../audit/audit.js';
import { renderAuditJson, renderAuditText, resultLine } from '../audit/audit-text.js';
import { explainJson, explainRun, renderExplainText } from '../audit/explain.js';
import type { Explanation } from '../audit/explain.js';
import type { Finding } from '../audit/findings.js';
import { renderAuditHtml } from '../audit/html.js';
import { judgeRun, renderJudgeText } from '../audit/judge.js';
import type { Judgement } from '../audit/judge.js';
import { parseLogLines, readAuditRun } from '../audit/records.js';
import { AuditSourceError, readAuditSource } from '../audit/source.js';
import type { AuditSource } from '../audit/source.js';
import { errorMessage } from '../util/errors.js';

/** What the audit does beyond verifying: see the header. */
export const AUDIT_ACTIONS = ['verify', 'explain', 'judge'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The formats the audit prints. */
export const AUDIT_FORMATS = ['text', 'json', 'html'] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

export const AUDIT_EXIT_CODES: readonly (readonly [number, string])[] = [
  [0, 'the log verifies and nothing is to report'],
  [1, 'the log verifies, with findings (e.g. incomplete: the run was killed)'],
  [2, 'the log fails verification, or it cannot be read, or a usage error'],
];

const HASH = /^(sha256:)?[0-9a-fA-F]{64}$/;

export interface AuditIo {
  argv: readonly string[];
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

interface AuditSettings {
  action: AuditAction;
  path: string;
  format: AuditFormat;
  expectHash: string | undefined;
  policy: string | undefined;
  workspace: string | undefined;
  out: string | undefined;
}

/** What one audit found: the verification, and the account and judgement when asked for. */
interface AuditReport {
  result: AuditResult;
  explanation: Explanation | undefined;
  judgement: Judgement | undefined;
  source: AuditSource;
  /** Every finding, the verification's and those of explain and judge, and the exit code. */
  findings: AuditFinding[];
  exitCode: 0 | 1 | 2;
}

/** `argv` without the leading `audit`. */
export async function runAuditCommand(io: AuditIo): Promise<number> {
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
  let report: AuditReport;
  try {
    report = await readBack(settings, source, result, io.cwd);
  } catch (error) {
    // A policy file that does not load: its error names the file, the field and the form.
    io.stderr(`Error: ${errorMessage(error)}\n`);
    return 2;
  }
  const output = render(settings.format, report);
  if (settings.out === undefined) io.stdout(output);
  else {
    const out = resolve(io.cwd, settings.out);
    try {
      writeFileSync(out, output);
    } catch (error) {
      io.stderr(`Error: cannot write ${out}: ${errorMessage(error)}\n`);
      return 2;
    }
    io.stderr(`ci-agent audit: wrote ${out}\n`);
  }
  return report.exitCode;
}

/** Steps 2–3. The account is read from every line, as far as the chain holds or not. */
async function readBack(
  settings: AuditSettings,
  source: AuditSource,
  result: AuditResult,
  cwd: string,
): Promise<AuditReport> {
  const wantsRun = settings.action !== 'verify' || settings.format === 'html';
  const run = wantsRun ? readAuditRun(parseLogLines(source.logText)) : undefined;
  const explanation = run && explainRun(run);
  const judgement =
    run && settings.action === 'judge'
      ? await judgeRun(run, {
          policyPath: settings.policy!,
          cwd,
          ...(settings.workspace !== undefined && { projectDir: resolve(cwd, settings.workspace) }),
        })
      : undefined;
  const findings = [
    ...result.findings,
    ...(settings.action === 'explain' && explanation ? explanation.findings.map(asAudit) : []),
    ...(judgement ? judgement.findings.map(asAudit) : []),
  ];
  return { result, explanation, judgement, source, findings, exitCode: exitCodeOf(findings) };
}

/** A finding about what the run did is a finding (exit 1); only verification fails (exit 2). */
function asAudit(finding: Finding): AuditFinding {
  return {
    code: finding.code,
    severity: 'finding',
    ...(finding.line !== undefined && { line: finding.line }),
    message: finding.message,
  };
}

function render(format: AuditFormat, report: AuditReport): string {
  const { result, explanation, judgement } = report;
  // The verification's own block, then the account and the judgement, then one result line.
  const verified = { ...result, findings: result.findings, exitCode: report.exitCode };
  switch (format) {
    case 'json': {
      const audit = JSON.parse(renderAuditJson(verified)) as Record<string, unknown>;
      return `${JSON.stringify(
        {
          ...audit,
          findings: report.findings,
          ...(explanation && { explain: explainJson(explanation) }),
          ...(judgement && { judge: judgement }),
        },
        null,
        2,
      )}\n`;
    }
    case 'html': {
      const patch = report.source.files.get('changes.patch');
      return renderAuditHtml({
        run: explanation!.run,
        verification: {
          verdict: result.verdict,
          ...(result.checkedAgainst && { checkedAgainst: result.checkedAgainst }),
        },
        title: `ci-agent audit of ${report.source.origin}`,
        ...(patch && { patch: new TextDecoder().decode(patch) }),
        ...(judgement && { judgement }),
      });
    }
    case 'text': {
      const parts = [renderAuditText(result).replace(/\nResult: [^\n]*\n$/, '\n')];
      if (explanation) parts.push(renderExplainText(explanation));
      if (judgement) parts.push(renderJudgeText(judgement));
      parts.push(`${resultLine(report.exitCode)}\n`);
      return parts.join('\n');
    }
  }
}

function parseAuditArgs(
  argv: readonly string[],
  writeOut: (text: string) => void,
): AuditSettings | 'exit' {
  const first = argv[0];
  const action = (AUDIT_ACTIONS as readonly string[]).includes(first ?? '')
    ? (first as AuditAction)
    : 'verify';
  const rest = action === first ? argv.slice(1) : argv;
  const program = new Command(`ci-agent audit${action === first ? ` ${action}` : ''}`)
    .usage('[verify | explain | judge --policy FILE] [options] <source>')
    .description(
      [
        "Verify a run's tool log: its hash chain, the final hash the run published, its attestation.",
        'explain: also every call with its input, decision, rule and rule file, hooks and result,',
        '  denials and failed hooks first.',
        'judge --policy FILE: also decide every recorded call under another policy, and list each',
        '  it would have denied or asked about.',
      ].join('\n'),
    )
    .argument('<source>', "the run's artifact (.zip), its unpacked folder, or a tool log (.jsonl)")
    .addOption(
      new Option('--format <format>', 'output format (html: one self-contained page, with --out)')
        .choices(AUDIT_FORMATS)
        .default('text'),
    )
    .option(
      '--expect-hash <hash>',
      'the final hash the run published (its log-hash output, report or job summary): sha256:<64 hex>',
    )
    .option('--policy <file>', 'judge: the policy file to decide the calls with')
    .option(
      '--workspace <dir>',
      "judge: the run's workspace, where its .claude/ settings are (default: the log's cwd)",
    )
    .option('--out <file>', 'write the output to this file instead of stdout')
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
    program.parse([...rest], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed') return 'exit';
      throw new Error(`ci-agent audit: ${error.message.replace(/^error: /, '')}`);
    }
    throw error;
  }
  const options = program.opts<{
    format: AuditFormat;
    expectHash?: string;
    policy?: string;
    workspace?: string;
    out?: string;
  }>();
  if (action === 'judge' && options.policy === undefined) {
    throw new Error('ci-agent audit judge needs --policy FILE: the policy to judge the run with');
  }
  if (action !== 'judge' && (options.policy !== undefined || options.workspace !== undefined)) {
    throw new Error(
      `--policy and --workspace belong to \`ci-agent audit judge\`, not ${action === first ? `\`audit ${action}\`` : 'a verification'}`,
    );
  }
  if (options.expectHash !== undefined && !HASH.test(options.expectHash.trim())) {
    throw new Error(
      `--expect-hash must be sha256:<64 hex digits> (the run's log-hash output), got ${JSON.stringify(options.expectHash)}`,
    );
  }
  return {
    action,
    path: program.args[0]!,
    format: options.format,
    expectHash: options.expectHash?.trim(),
    policy: options.policy,
    workspace: options.workspace,
    out: options.out,
  };
}
