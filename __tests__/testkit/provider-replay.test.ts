import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicFoundry } from '@anthropic-ai/foundry-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { recordedSession } from '../../src/demo/sample.js';
import { startBedrockServer } from '../../testkit/bedrock-server.js';
import { startFoundryServer } from '../../testkit/foundry-server.js';
import {
  startGoogleTokenServer,
  writeGoogleCredentialsFile,
} from '../../testkit/google-token-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { ReplayServer } from '../../testkit/replay-session.js';
import { startVertexServer } from '../../testkit/vertex-server.js';

/** Anything that streams a Messages request: the first-party client or a platform's. */
interface Streaming {
  messages: { stream(body: Anthropic.MessageStreamParams): { finalMessage(): Promise<Message> } };
}

const ROOT = '/work/sample';
let directory: string;
const servers: ReplayServer[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'provider-replay-'));
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(directory, { recursive: true, force: true });
});

/** Plays the whole demo session: each answer goes back as the next request's history. */
async function play(client: Streaming, model: string): Promise<Message[]> {
  const messages: MessageParam[] = [{ role: 'user', content: 'Fix the failing test.' }];
  const answers: Message[] = [];
  for (let turn = 0; turn < recordedSession(ROOT).length; turn++) {
    const answer = await client.messages
      .stream({ model, max_tokens: 1024, messages })
      .finalMessage();
    answers.push(answer);
    messages.push({ role: 'assistant', content: answer.content });
    const calls = answer.content.filter((block) => block.type === 'tool_use');
    if (calls.length === 0) break;
    messages.push({
      role: 'user',
      content: calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: 'ok' })),
    });
  }
  return answers;
}

async function firstParty(): Promise<Message[]> {
  const server = await startReplayServer({ turns: recordedSession(ROOT), apiKey: 'sk-ant-test' });
  servers.push(server);
  return play(
    new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-test', maxRetries: 0 }),
    'claude-sonnet-5',
  );
}

async function bedrock(): Promise<Message[]> {
  const credentials = {
    region: 'us-west-2',
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'secret',
  };
  const server = await startBedrockServer({ ...credentials, turns: recordedSession(ROOT) });
  servers.push(server);
  const client = new AnthropicBedrock({
    baseURL: server.url,
    apiKey: null,
    awsRegion: credentials.region,
    awsAccessKey: credentials.accessKeyId,
    awsSecretKey: credentials.secretAccessKey,
    maxRetries: 0,
  });
  return play(client, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');
}

async function vertex(): Promise<Message[]> {
  const tokens = await startGoogleTokenServer();
  servers.push(tokens);
  const server = await startVertexServer({
    projectId: 'ci-agent-test',
    region: 'global',
    accessToken: tokens.federatedToken,
    turns: recordedSession(ROOT),
  });
  servers.push(server);
  const file = await writeGoogleCredentialsFile(tokens, join(directory, 'gha-creds.json'));
  vi.stubEnv('GOOGLE_APPLICATION_CREDENTIALS', file);
  vi.stubEnv('GOOGLE_CLOUD_PROJECT', 'ci-agent-test');
  const client = new AnthropicVertex({
    region: 'global',
    projectId: 'ci-agent-test',
    baseURL: server.baseURL,
    maxRetries: 0,
  });
  return play(client, 'claude-sonnet-4-5@20250929');
}

async function foundry(): Promise<Message[]> {
  const server = await startFoundryServer({ apiKey: 'foundry-key', turns: recordedSession(ROOT) });
  servers.push(server);
  return play(
    new AnthropicFoundry({ baseURL: server.baseURL, apiKey: 'foundry-key', maxRetries: 0 }),
    'claude-sonnet-5',
  );
}

describe('one recorded session on every provider', () => {
  it('replays the demo session to the same messages through each real SDK', async () => {
    const expected = recordedSession(ROOT).map((entry) =>
      (Array.isArray(entry) ? entry : []).map((block) =>
        block.type === 'tool_use' ? { ...block, input: block.input ?? {} } : block,
      ),
    );

    const played = {
      firstParty: await firstParty(),
      bedrock: await bedrock(),
      vertex: await vertex(),
      foundry: await foundry(),
    };

    for (const answers of Object.values(played)) {
      expect(answers.map((answer) => answer.content)).toEqual(expected);
      expect(answers.map((answer) => answer.stop_reason)).toEqual([
        'tool_use',
        'tool_use',
        'tool_use',
        'tool_use',
        'end_turn',
      ]);
    }
  });
});
