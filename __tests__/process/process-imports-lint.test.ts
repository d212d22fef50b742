import { ESLint, Linter } from 'eslint';
import { resolve } from 'node:path';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const RULE = '@typescript-eslint/no-restricted-imports';
const IMPORTS = [
  "import { spawn } from 'node:child_process';",
  "import { execFile } from 'child_process';",
  "import { execa } from 'execa';",
];

/** The rule as eslint.config.js configures it for `file`, applied to `code` alone. */
async function lint(file: string, code: string): Promise<string[]> {
  const config = (await new ESLint({ cwd: ROOT }).calculateConfigForFile(file)) as Linter.Config;
  const rule = config.rules?.[RULE];
  if (rule === undefined) return [];
  const messages = new Linter({ configType: 'flat' }).verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { '@typescript-eslint': tseslint.plugin as unknown as ESLint.Plugin },
        rules: { [RULE]: rule },
      },
    ],
    file,
  );
  return messages.map((message) => message.message);
}

describe('the lint rule on child processes', () => {
  it.each(IMPORTS)('refuses `%s` in src outside src/process', async (code) => {
    const messages = await lint(resolve(ROOT, 'src/tools/builtin/bash/run-command.ts'), code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('Start processes with runProcess (src/process/run-process.ts)');
  });

  it.each([
    '__tests__/github/git.test.ts',
    'bench/grep.ts',
    'scripts/report-examples.ts',
    'testkit/replay-server.ts',
  ])('refuses node:child_process in %s', async (file) => {
    for (const code of IMPORTS.slice(0, 2)) {
      const messages = await lint(resolve(ROOT, file), code);
      expect(messages, code).toHaveLength(1);
      expect(messages[0]).toContain('Start processes with execa (or runProcess');
    }
  });

  it('lets tests start processes with execa, and name the ChildProcess type', async () => {
    const file = resolve(ROOT, '__tests__/github/git.test.ts');
    expect(await lint(file, "import { execa, execaSync } from 'execa';")).toEqual([]);
    expect(await lint(file, "import type { ChildProcess } from 'node:child_process';")).toEqual([]);
  });

  it('lets src/process import execa', async () => {
    const code = "import { execa } from 'execa';";
    expect(await lint(resolve(ROOT, 'src/process/run-process.ts'), code)).toEqual([]);
  });
});
