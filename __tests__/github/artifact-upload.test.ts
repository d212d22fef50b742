import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { artifactFiles, uploadArtifact } from '../../src/github/artifact-upload.js';
import { createWorkflowCommands } from '../../src/github/workflow-commands.js';
import { startArtifactService } from '../../testkit/github-server/index.js';
import type { ArtifactFault, ArtifactService } from '../../testkit/github-server/index.js';
import { signRuntimeToken } from '../../testkit/github-server/runtime-token.js';
import { captureStdout } from '../helpers/runner-stdout.js';

const RUN_FILES = {
  log: ['tool-log.jsonl', '{"type":"system","subtype":"init"}\n{"type":"result"}\n'],
  transcript: ['transcript.jsonl', '{"type":"user","message":"fix the crash — ünïcode"}\n'],
  diff: ['changes.patch', 'diff --git a/src/a.js b/src/a.js\n-old\n+new\n'],
  report: ['report.md', '### ✅ ci-agent\n\nThe agent made changes.\n'],
} as const;

let dir: string;
let paths: Record<string, string>;
let service: ArtifactService | undefined;
let lines: string[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ci-agent-artifact-'));
  paths = {};
  for (const [key, [file, content]] of Object.entries(RUN_FILES)) {
    paths[key] = join(dir, file);
    await writeFile(paths[key], content);
  }
  lines = captureStdout();
  // The client refuses GitHub Enterprise Server hosts; a runner on github.com sets this.
  vi.stubEnv('GITHUB_SERVER_URL', 'https://github.com');
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await service?.close();
  service = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The real service's variables, as a runner sets them for the step. */
async function runnerWithService(faults: ArtifactFault[] = []): Promise<ArtifactService> {
  service = await startArtifactService({ faults });
  vi.stubEnv('ACTIONS_RUNTIME_TOKEN', service.env.ACTIONS_RUNTIME_TOKEN);
  vi.stubEnv('ACTIONS_RESULTS_URL', service.env.ACTIONS_RESULTS_URL);
  return service;
}

function upload(name = 'ci-agent-1658821493'): Promise<boolean> {
  const commands = createWorkflowCommands({ env: {} });
  return uploadArtifact(commands, name, dir, paths);
}

function warnings(): string[] {
  return lines.filter((line) => line.startsWith('::warning::'));
}

describe('uploadArtifact', () => {
  describe('when the runner provides the results service', () => {
    it('uploads every file of the run, with its content, under the artifact name', async () => {
      const fake = await runnerWithService();
      expect(await upload()).toBe(true);
      expect(warnings()).toEqual([]);
      expect(fake.violations()).toEqual([]);
      expect(fake.artifacts).toHaveLength(1);
      const [artifact] = fake.artifacts;
      expect(artifact?.name).toBe('ci-agent-1658821493');
      expect(artifact?.files).toEqual(
        Object.fromEntries(Object.values(RUN_FILES).map(([file, content]) => [file, content])),
      );
    });

    it('uploads the files that exist when the run ended before its transcript and patch', async () => {
      const fake = await runnerWithService();
      await rm(paths.transcript!);
      await rm(paths.diff!);
      await upload();
      expect(warnings()).toEqual([]);
      expect(Object.keys(fake.artifacts[0]?.files ?? {}).sort()).toEqual([
        'report.md',
        'tool-log.jsonl',
      ]);
    });

    it('reports the zip size and sha256 the service checks the blob against', async () => {
      const fake = await runnerWithService();
      await upload();
      const [artifact] = fake.artifacts;
      expect(artifact?.mimeType).toBe('application/zip');
      expect(artifact?.size).toBe(artifact?.blob.length);
      const digest = createHash('sha256').update(artifact!.blob).digest('hex');
      expect(artifact?.hash).toBe(`sha256:${digest}`);
      expect(fake.requests.map((request) => [request.operation, request.status])).toEqual([
        ['CreateArtifact', 200],
        ['UploadBlob', 201],
        ['UploadBlob', 201],
        ['FinalizeArtifact', 200],
      ]);
    });

    it('uploads a file of several MiB that does not compress intact', async () => {
      const fake = await runnerWithService();
      const noise = randomBytes(3 * 1024 * 1024).toString('base64');
      await writeFile(paths.log!, noise);
      await upload();
      expect(warnings()).toEqual([]);
      expect(fake.artifacts[0]?.files['tool-log.jsonl']).toBe(noise);
    });

    it('retries a blob write the storage failed once, and the artifact arrives whole', async () => {
      const fake = await runnerWithService([{ operation: 'UploadBlob', status: 500, times: 1 }]);
      await upload();
      expect(warnings()).toEqual([]);
      expect(fake.requests.filter((request) => request.fault)).toHaveLength(1);
      expect(Object.keys(fake.artifacts[0]?.files ?? {})).toHaveLength(4);
    });
  });

  describe('when the upload fails', () => {
    it('warns that there is no ACTIONS_RUNTIME_TOKEN outside a runner, and does not throw', async () => {
      vi.stubEnv('ACTIONS_RUNTIME_TOKEN', undefined);
      vi.stubEnv('ACTIONS_RESULTS_URL', undefined);
      await expect(upload()).resolves.toBe(false);
      expect(warnings()).toEqual([
        `::warning::the artifact could not be uploaded (Unable to get the ACTIONS_RUNTIME_TOKEN env variable); the files are in ${dir}\n`,
      ]);
    });

    it('warns with the service conflict when the run already has an artifact of that name', async () => {
      const fake = await runnerWithService();
      await upload();
      await expect(upload()).resolves.toBe(false);
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toContain(
        '(409) Conflict: an artifact with this name already exists on the workflow run',
      );
      expect(fake.artifacts).toHaveLength(1);
      expect(fake.violations()).toEqual([]);
    });

    it('warns when the service does not accept the runtime token', async () => {
      const fake = await runnerWithService();
      const foreign = signRuntimeToken(
        {
          scp: `Actions.Results:${fake.scope.workflowRunBackendId}:${fake.scope.workflowJobRunBackendId}`,
        },
        randomBytes(32),
      );
      vi.stubEnv('ACTIONS_RUNTIME_TOKEN', foreign);
      await upload();
      expect(warnings()[0]).toContain('(401) Unauthorized');
      expect(fake.artifacts).toEqual([]);
    });

    it('warns when the results service cannot be reached', async () => {
      const fake = await runnerWithService();
      await fake.close();
      service = undefined;
      await upload();
      expect(warnings()[0]).toMatch(/Unable to make request: ECONNREFUSED/);
      expect(warnings()[0]).toContain(`the files are in ${dir}`);
    });

    it('warns when blob storage refuses the upload, and nothing is finalized', async () => {
      const fake = await runnerWithService([{ operation: 'UploadBlob', status: 403 }]);
      await upload();
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toContain('injected fault: 403');
      expect(fake.requests.map((request) => request.operation)).not.toContain('FinalizeArtifact');
      expect(fake.artifacts).toEqual([]);
    });

    it('warns when the run files are gone', async () => {
      await runnerWithService();
      await rm(dir, { recursive: true, force: true });
      await upload();
      expect(warnings()[0]).toContain(`the files are in ${dir}`);
    });
  });
});

describe('artifactFiles', () => {
  it('names the files that exist, and those still to be written', async () => {
    await rm(paths.transcript!);
    await rm(paths.report!);
    expect(artifactFiles(paths, [paths.report!])).toEqual([
      'tool-log.jsonl',
      'changes.patch',
      'report.md',
    ]);
  });
});
