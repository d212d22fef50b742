/**
 * What the report shows of an outcome the run itself reports: problems in a code block (a bad
 * policy file's), and the files the artifact really holds.
 */
import { describe, expect, it } from 'vitest';
import { ReportCollector } from '../../src/github/report.js';
import { renderReport } from '../../src/github/report-markdown.js';
import type { ReportContext } from '../../src/github/report-markdown.js';

const CONTEXT: ReportContext = {
  conclusion: 'failed',
  headline: 'the policy is not valid (.github/ci-agent.yml): the run did not start',
  files: [],
  diff: '',
  artifactName: 'ci-agent-log',
};

describe('renderReport, for an outcome the run reports', () => {
  it('shows the problems as written, in a fence no line of them can close', async () => {
    const problems =
      '.github/ci-agent.yml:2:10: permissions.allow: expected a list, got "```</details>"\n.github/ci-agent.yml:3:1: hooks: unknown key';
    const text = await Promise.resolve(
      renderReport(new ReportCollector().report, {
        ...CONTEXT,
        errorDetails: problems,
      }),
    );
    expect(text).toContain(`\`\`\`\`text\n${problems}\n\`\`\`\`\n`);
    expect(text.indexOf('````text')).toBeGreaterThan(text.indexOf('the run did not start'));
  });

  it('names the files the artifact holds', async () => {
    const text = await Promise.resolve(
      renderReport(new ReportCollector().report, {
        ...CONTEXT,
        artifactFiles: ['tool-log.jsonl', 'report.md'],
      }),
    );
    expect(text).toContain('the `ci-agent-log` artifact: tool-log.jsonl, report.md');
    expect(text).not.toContain('transcript');
  });

  it('says that no artifact was uploaded when none was', async () => {
    const text = await Promise.resolve(
      renderReport(new ReportCollector().report, { ...CONTEXT, artifactFiles: [] }),
    );
    expect(text).toContain('no artifact was uploaded: the step log says why');
    expect(text).not.toContain('`ci-agent-log` artifact');
  });
});
