import { describe, expect, it } from 'vitest';
import { policyAnnotations } from '../../src/github/policy-annotations.js';
import { mergeLayers } from '../../src/policy/merge.js';
import { parseSettingsFile } from '../../src/policy/settings-file.js';

const FILE = '.claude/settings.json';

function policyOf(text: string) {
  const layer = parseSettingsFile({ kind: 'project', path: FILE, text, anchorDir: '/repo' });
  return mergeLayers({ settings: [layer] });
}

describe('policyAnnotations', () => {
  it('puts each warning on the file, line and column it names', () => {
    const policy = policyOf('{\n  "permissions": {},\n  "permision": {}\n}\n');
    expect(policyAnnotations(policy)).toEqual([
      {
        message: policy.warnings[0],
        properties: { title: 'ci-agent policy', file: FILE, startLine: 3, startColumn: 3 },
      },
    ]);
    expect(policy.warnings[0]).toMatch(/^\.claude\/settings\.json:3:3: /);
  });

  it('keeps a warning without a known position on the run, with its text', () => {
    const annotations = policyAnnotations({ warnings: ['somewhere: odd'], warningIssues: [] });
    expect(annotations).toEqual([
      { message: 'somewhere: odd', properties: { title: 'ci-agent policy' } },
    ]);
  });
});
