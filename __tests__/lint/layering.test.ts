/**
 * The layering rules of eslint.config.js (docs/ARCHITECTURE.md, "Layout"), run through ESLint's
 * Node API on snippets placed in each folder: an import that breaks a layer is an error naming the
 * rule, and the imports each layer may make lint clean.
 *
 * Type-aware linting needs files the TypeScript project knows; the snippets exist only in memory,
 * so the type-checked rules are switched off here (the layering rules need no types).
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENGINE = [
  'agent',
  'execution',
  'tools',
  'permissions',
  'policy',
  'hooks',
  'model',
  'mcp',
  'shell',
];

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
  });
});

interface Finding {
  rule: string | null;
  message: string;
}

/** What ESLint reports for `code` as if it were the file at `filePath` (relative to the root). */
async function lint(code: string, filePath: string): Promise<Finding[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${filePath}` });
  if (result === undefined) throw new Error(`ESLint returned no result for ${filePath}`);
  return result.messages.map((message) => ({ rule: message.ruleId, message: message.message }));
}

const LAYER = /imports nothing from src\/github\/, src\/cli\/ or src\/demo\//;
const TESTKIT = /only src\/demo\/ may import it/;
const NO_IO = /src\/permissions\/ does no I\/O/;

describe('the engine imports nothing from src/github/, src/cli/ or testkit/', () => {
  it.each(ENGINE)('src/%s/ may not import src/github/, src/cli/ or src/demo/', async (layer) => {
    for (const target of ['../github/inputs.js', '../cli/args.js', '../demo/main.js']) {
      expect(
        await lint(`import { x } from '${target}';\nexport { x };\n`, `src/${layer}/x.ts`),
        target,
      ).toEqual([
        { rule: 'no-restricted-imports', message: expect.stringMatching(LAYER) as string },
      ]);
    }
  });

  it.each(ENGINE)('src/%s/ may not import testkit/', async (layer) => {
    expect(
      await lint(
        `import { x } from '../../testkit/replay-server.js';\nexport { x };\n`,
        `src/${layer}/x.ts`,
      ),
    ).toEqual([
      { rule: 'no-restricted-imports', message: expect.stringMatching(TESTKIT) as string },
    ]);
  });

  it('holds at any depth, for type imports, re-exports and import()', async () => {
    const cases: [string, string][] = [
      [
        "import { x } from '../../../github/inputs.js';\nexport { x };\n",
        'src/tools/builtin/bash/x.ts',
      ],
      ["import type { X } from '../cli/args.js';\nexport type { X };\n", 'src/agent/x.ts'],
      ["export { runAction } from '../github/run-action.js';\n", 'src/execution/x.ts'],
      ["export * from '../../github/inputs.js';\n", 'src/agent/context/x.ts'],
      ["export * from './../github/inputs.js';\n", 'src/model/x.ts'],
      ["export const load = () => import('../github/artifact-upload.js');\n", 'src/hooks/x.ts'],
      [
        "export const load = () => import('../../../testkit/replay-server.js');\n",
        'src/tools/web/x.ts',
      ],
    ];
    for (const [code, filePath] of cases) {
      const findings = await lint(code, filePath);
      expect(findings, `${filePath}: ${code}`).toHaveLength(1);
      expect(findings[0]?.message, `${filePath}: ${code}`).toMatch(/src\/github\/|testkit/);
      expect(findings[0]?.rule, `${filePath}: ${code}`).toMatch(/^no-restricted-(imports|syntax)$/);
    }
  });

  it('does not talk to the runner (@actions/*)', async () => {
    expect(
      await lint("import { x } from '@actions/artifact';\nexport { x };\n", 'src/model/x.ts'),
    ).toEqual([
      {
        rule: 'no-restricted-imports',
        message: expect.stringMatching(/does not talk to the runner/) as string,
      },
    ]);
  });

  it('may import its own layers, log/, util/ and packages', async () => {
    const code = [
      "import { isInside } from '../tools/paths.js';",
      "import { buildChildEnv } from '../util/child-env.js';",
      "import { x } from '../log/tool-log.js';",
      "import picomatch from 'picomatch';",
      'export { buildChildEnv, isInside, picomatch, x };',
      '',
    ].join('\n');
    for (const layer of ENGINE) expect(await lint(code, `src/${layer}/x.ts`), layer).toEqual([]);
    expect(
      await lint(
        "import { readFile } from 'node:fs/promises';\nexport { readFile };\n",
        'src/tools/x.ts',
      ),
    ).toEqual([]);
  });
});

describe('src/permissions/ does no I/O', () => {
  it.each([
    'node:fs',
    'node:fs/promises',
    'fs',
    'node:child_process',
    'node:net',
    'node:http',
    'node:https',
    'execa',
  ])('may not import %s', async (specifier) => {
    // child_process and execa are refused everywhere but src/process/ too (a rule of its own).
    expect(
      await lint(`import * as io from '${specifier}';\nexport { io };\n`, 'src/permissions/x.ts'),
    ).toContainEqual({
      rule: 'no-restricted-imports',
      message: expect.stringMatching(NO_IO) as string,
    });
  });

  it('may not call fetch, nor import() an I/O module', async () => {
    expect(
      await lint(
        "export const get = () => fetch('https://example.com');\n",
        'src/permissions/x.ts',
      ),
    ).toEqual([{ rule: 'no-restricted-globals', message: expect.stringMatching(NO_IO) as string }]);
    expect(
      await lint("export const load = () => import('node:fs');\n", 'src/permissions/x.ts'),
    ).toEqual([{ rule: 'no-restricted-syntax', message: expect.stringMatching(NO_IO) as string }]);
  });

  it('may use node:path, node:url and pure modules; the I/O rule stays in permissions/', async () => {
    const code = [
      "import { join } from 'node:path';",
      "import { fileURLToPath } from 'node:url';",
      "import { isInside } from '../tools/paths.js';",
      'export { fileURLToPath, isInside, join };',
      '',
    ].join('\n');
    expect(await lint(code, 'src/permissions/x.ts')).toEqual([]);
    const io =
      "import { readFileSync } from 'node:fs';\nexport const read = () => fetch('x') && readFileSync;\n";
    expect(await lint(io, 'src/policy/x.ts')).toEqual([]);
  });
});

describe('nothing in src/ but src/demo/ imports testkit/', () => {
  it.each(['src/index.ts', 'src/github/x.ts', 'src/cli/x.ts', 'src/util/x.ts', 'src/log/x.ts'])(
    '%s may not import testkit/',
    async (filePath) => {
      const depth = filePath.split('/').length - 1;
      const code = `import { startGitHubServer } from '${'../'.repeat(depth)}testkit/github-server/index.js';\nexport { startGitHubServer };\n`;
      expect(await lint(code, filePath)).toEqual([
        { rule: 'no-restricted-imports', message: expect.stringMatching(TESTKIT) as string },
      ]);
    },
  );

  it('src/demo/ may, and so may src/github/ and src/cli/ import the engine', async () => {
    const demo =
      "import { startGitHubServer } from '../../testkit/github-server/index.js';\nimport { startReplayServer } from '../../testkit/replay-server.js';\nexport { startGitHubServer, startReplayServer };\n";
    expect(await lint(demo, 'src/demo/x.ts')).toEqual([]);
    const outer =
      "import { runAgent } from '../agent/loop.js';\nimport { decide } from '../permissions/decide.js';\nexport { decide, runAgent };\n";
    expect(await lint(outer, 'src/github/x.ts')).toEqual([]);
    expect(await lint(outer, 'src/cli/x.ts')).toEqual([]);
  });
});

describe('the start-up rules still hold in every layer', () => {
  it.each(['src/permissions/x.ts', 'src/agent/x.ts', 'src/github/x.ts', 'src/demo/x.ts'])(
    '%s: the whole SDK and a named zod `z`',
    async (filePath) => {
      const findings = await lint(
        "import Anthropic from '@anthropic-ai/sdk';\nimport { z } from 'zod';\nexport { Anthropic, z };\n",
        filePath,
      );
      expect(findings.map((finding) => finding.rule)).toEqual([
        'no-restricted-imports',
        'no-restricted-syntax',
      ]);
    },
  );
});
