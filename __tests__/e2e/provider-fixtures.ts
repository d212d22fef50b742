/**
 * Each model provider as a workflow sets it up, around a loopback server of its wire format that
 * replays the demo's recorded session (src/demo/sample.ts): the server, the job's environment
 * (what aws-actions/configure-aws-credentials and google-github-actions/auth leave behind), the
 * action's inputs, and what the run must have sent.
 */
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { recordedSession, SAMPLE_FILES, SAMPLE_POLICY } from '../../src/demo/sample.js';
import { startBedrockServer } from '../../testkit/bedrock-server.js';
import type { BedrockFault } from '../../testkit/bedrock-server.js';
import { startFoundryServer } from '../../testkit/foundry-server.js';
import {
  startGoogleTokenServer,
  writeGoogleCredentialsFile,
} from '../../testkit/google-token-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-session.js';
import { startVertexServer } from '../../testkit/vertex-server.js';
import type { VertexFault } from '../../testkit/vertex-server.js';

export const SAMPLE_REPOSITORY = { ...SAMPLE_FILES, '.github/ci-agent.yml': SAMPLE_POLICY };

export interface ProviderSetup {
  server: ReplayServer;
  /** The job's environment for the provider. */
  env: Record<string, string>;
  /** The action's inputs (INPUT_<NAME>) that choose it. */
  inputs: Record<string, string>;
  /** The model id every request must name (on the path, or in the body). */
  modelId: string;
  /** What system/init says. */
  provider: string;
  /** What the report says after the model, on a cloud provider. */
  label?: string;
  /** Values that must never be printed. */
  secrets: string[];
}

export interface ProviderCase {
  name: string;
  start(root: string, faults?: Record<number, unknown>): Promise<ProviderSetup>;
}

function closing<T extends { close(): Promise<void> }>(server: T): T {
  onTestFinished(() => server.close());
  return server;
}

const AWS = {
  region: 'us-east-1',
  accessKeyId: 'AKIAPROVIDERTEST0001',
  secretAccessKey: 'aws-secret-provider-test-0123456789',
  sessionToken: 'aws-session-provider-test-0123456789',
};

export const BEDROCK: ProviderCase = {
  name: 'Amazon Bedrock',
  async start(root, faults) {
    const server = closing(
      await startBedrockServer({
        ...AWS,
        turns: recordedSession(root),
        ...(faults && { faults: faults as Record<number, BedrockFault> }),
      }),
    );
    return {
      server,
      env: {
        AWS_REGION: AWS.region,
        AWS_DEFAULT_REGION: AWS.region,
        AWS_ACCESS_KEY_ID: AWS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
        AWS_SESSION_TOKEN: AWS.sessionToken,
        ANTHROPIC_BEDROCK_BASE_URL: server.url,
      },
      inputs: { 'USE-BEDROCK': 'true' },
      modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      provider: 'bedrock',
      label: 'Amazon Bedrock (us-east-1)',
      secrets: [AWS.secretAccessKey, AWS.sessionToken],
    };
  },
};

export const VERTEX: ProviderCase = {
  name: 'Google Vertex AI',
  async start(root, faults) {
    const tokens = closing(await startGoogleTokenServer());
    const server = closing(
      await startVertexServer({
        projectId: 'ci-agent-test',
        region: 'us-east5',
        accessToken: tokens.federatedToken,
        turns: recordedSession(root),
        ...(faults && { faults: faults as Record<number, VertexFault> }),
      }),
    );
    // Where google-github-actions/auth puts it: in the workspace.
    const file = await writeGoogleCredentialsFile(
      tokens,
      join(root, 'gha-creds-5f0e1d2c3b4a.json'),
    );
    return {
      server,
      env: {
        GOOGLE_APPLICATION_CREDENTIALS: file,
        GOOGLE_GHA_CREDS_PATH: file,
        CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: file,
        GOOGLE_CLOUD_PROJECT: 'ci-agent-test',
        CLOUDSDK_CORE_PROJECT: 'ci-agent-test',
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_PROJECT_ID: 'ci-agent-test',
        ANTHROPIC_VERTEX_BASE_URL: server.baseURL,
      },
      inputs: { 'USE-VERTEX': 'true' },
      modelId: 'claude-sonnet-4-5@20250929',
      provider: 'vertex',
      label: 'Google Vertex AI (ci-agent-test, us-east5)',
      secrets: [tokens.federatedToken, tokens.oidcRequestToken],
    };
  },
};

export const FOUNDRY: ProviderCase = {
  name: 'Microsoft Foundry',
  async start(root) {
    const apiKey = 'foundry-key-provider-test-0123456789';
    const server = closing(await startFoundryServer({ apiKey, turns: recordedSession(root) }));
    return {
      server,
      env: { ANTHROPIC_FOUNDRY_BASE_URL: server.baseURL, ANTHROPIC_FOUNDRY_API_KEY: apiKey },
      inputs: { 'USE-FOUNDRY': 'true' },
      modelId: 'claude-sonnet-4-5',
      provider: 'foundry',
      label: `Microsoft Foundry (${server.baseURL})`,
      secrets: [apiKey],
    };
  },
};

/** Anthropic's API with a Claude Code OAuth token, as claude-code-action takes it. */
export const OAUTH: ProviderCase = {
  name: "Anthropic's API with a Claude Code OAuth token",
  async start(root) {
    const token = 'sk-ant-oat01-provider-test-0123456789';
    const server = closing(
      await startReplayServer({ apiKey: token, turns: recordedSession(root) }),
    );
    return {
      server,
      env: { ANTHROPIC_BASE_URL: server.url },
      inputs: { 'CLAUDE-CODE-OAUTH-TOKEN': token },
      modelId: 'claude-sonnet-5-5',
      provider: 'anthropic',
      secrets: [token],
    };
  },
};

export const PROVIDERS = [BEDROCK, VERTEX, FOUNDRY, OAUTH];

/** The model each model request named: the path's on Bedrock and Vertex, else the body's. */
export function modelsRequested(server: ReplayServer): string[] {
  return server.requests
    .filter((request) => request.method === 'POST' && request.status === 200)
    .map((request) => {
      const model = (request.body as { model?: unknown } | null)?.model;
      return request.modelId ?? (typeof model === 'string' ? model : '');
    });
}
