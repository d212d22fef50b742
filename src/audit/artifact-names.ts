/**
 * The names of the files of a run's artifact that more than the audit reads: the action names the
 * attestation from here without loading the audit's reader (source.ts, with its zip support) at
 * start-up.
 */
export const TOOL_LOG_FILE = 'tool-log.jsonl';
export const REPORT_FILE = 'report.md';
export const ATTESTATION_FILE = 'attestation.sigstore.json';
