/**
 * Real webhook payloads from @octokit/webhooks-examples (what GitHub sends), copied so each test can
 * change the fields it is about, and the runner's environment around them.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import type { WebhookEventMap, WebhookEventName } from '@octokit/webhooks-types';

// The package is one JSON file (its `main`), typed by its index.d.ts.
const definitions = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@octokit/webhooks-examples'), 'utf8'),
) as WebhookDefinition[];

/** A deep copy of the first example of `event` for which `matches` holds. */
export function webhookExample<
  Name extends WebhookEventName,
  Payload extends WebhookEventMap[Name],
>(event: Name, matches: (payload: WebhookEventMap[Name]) => payload is Payload): Payload;
export function webhookExample<Name extends WebhookEventName>(
  event: Name,
  matches?: (payload: WebhookEventMap[Name]) => boolean,
): WebhookEventMap[Name];
export function webhookExample<Name extends WebhookEventName>(
  event: Name,
  matches: (payload: WebhookEventMap[Name]) => boolean = () => true,
): WebhookEventMap[Name] {
  const definition = definitions.find((candidate) => candidate.name === event);
  const examples = (definition?.examples ?? []) as WebhookEventMap[Name][];
  const example = examples.find(matches);
  if (!example) throw new Error(`no ${event} example matches`);
  return structuredClone(example);
}

export interface RunnerEvent {
  eventName: string;
  payload: unknown;
  env?: Record<string, string>;
}

/**
 * The payload written where GITHUB_EVENT_PATH points (removed when the test ends), and the
 * variables a runner sets.
 */
export async function runnerEnvironment(event: RunnerEvent): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), 'ci-agent-event-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const eventPath = join(dir, 'event.json');
  await writeFile(eventPath, JSON.stringify(event.payload));
  return {
    GITHUB_EVENT_NAME: event.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'Codertocat/Hello-World',
    GITHUB_RUN_ID: '1658821493',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_ACTOR: 'Codertocat',
    GITHUB_SHA: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
    GITHUB_REF: 'refs/heads/master',
    ...event.env,
  };
}
