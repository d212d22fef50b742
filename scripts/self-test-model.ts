/**
 * The model for CI's self-test of the action (`.github/workflows/ci.yml`, job `action`): a runner
 * has no model the project may call and no key to spend, so the step that runs the action from the
 * checkout (`uses: ./`) points ANTHROPIC_BASE_URL at this loopback Messages API, started by an
 * earlier step of the same job. It streams a recorded two-turn session: the model reads the
 * workspace's package.json, then answers. The run goes through everything a real one does — the
 * runner's inputs and event, the policy, the tool pipeline, the permission decision, the report and
 * the outputs — and changes nothing, so it pushes nothing.
 *
 *   tsx scripts/self-test-model.ts serve <workspace> <state-dir>
 *     listens; writes <state-dir>/url once it does, and <state-dir>/requests.json after each
 *     request, so that the check needs no signal to the server
 *   tsx scripts/self-test-model.ts check <workspace> <state-dir>
 *     exits 1, saying what is missing, unless the action made both requests with the step's key and
 *     sent back package.json as the Read result
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordedRequest, ReplayServer } from '../testkit/replay-server.js';
import { startReplayServer } from '../testkit/replay-server.js';

/** The key the workflow gives the action; the server answers 401 to any other. Not a secret. */
export const SELF_TEST_API_KEY = 'self-test-key-not-a-secret';
export const SELF_TEST_ANSWER =
  'The package is the ci-agent CLI; package.json names its Node requirement.';
const READ_ID = 'toolu_self_test_read';

export function startSelfTestModel(workspace: string): Promise<ReplayServer> {
  return startReplayServer({
    apiKey: SELF_TEST_API_KEY,
    turns: [
      [
        { type: 'text', text: 'I will read package.json.' },
        {
          type: 'tool_use',
          id: READ_ID,
          name: 'Read',
          input: { file_path: join(workspace, 'package.json') },
        },
      ],
      [{ type: 'text', text: SELF_TEST_ANSWER }],
    ],
  });
}

/** What went wrong with the action's requests, one line each; empty when the run was the recorded one. */
export function selfTestProblems(
  requests: readonly RecordedRequest[],
  workspace: string,
): string[] {
  const messages = requests.filter(
    (request) => request.method === 'POST' && request.path === '/v1/messages',
  );
  const problems: string[] = [];
  const refused = messages.filter((request) => request.status === 401);
  if (refused.length > 0) {
    problems.push(
      `${refused.length} request(s) to /v1/messages carried another API key than the step's anthropic-api-key input`,
    );
  }
  if (messages.length !== 2) {
    problems.push(
      `expected 2 requests to /v1/messages (Read, then the answer), got ${messages.length}`,
    );
    return problems;
  }
  const expected = readFileSync(join(workspace, 'package.json'), 'utf8').split('\n')[1] ?? '';
  const result = toolResultText(messages[1]!.body, READ_ID);
  if (result === undefined) {
    problems.push(`the second request carries no tool_result for ${READ_ID} (the Read call)`);
  } else if (!result.includes(expected.trim())) {
    problems.push(
      `the Read result does not show package.json (expected a line with ${JSON.stringify(expected.trim())}), got ${JSON.stringify(result.slice(0, 200))}`,
    );
  }
  return problems;
}

function toolResultText(body: unknown, toolUseId: string): string | undefined {
  const messages = (body as { messages?: Array<{ content?: unknown }> } | null)?.messages ?? [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block['type'] !== 'tool_result' || block['tool_use_id'] !== toolUseId) continue;
      const content = block['content'];
      if (typeof content === 'string') return content;
      if (Array.isArray(content)) {
        return content
          .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
          .join('');
      }
      return '';
    }
  }
  return undefined;
}

/** The exit code, or undefined while `serve` keeps listening. */
async function main(argv: readonly string[]): Promise<number | undefined> {
  const [command, workspace, stateDir] = argv;
  if ((command !== 'serve' && command !== 'check') || !workspace || !stateDir) {
    process.stderr.write(
      'usage: tsx scripts/self-test-model.ts serve|check <workspace> <state-dir>\n',
    );
    return 2;
  }
  const requestsFile = join(stateDir, 'requests.json');
  if (command === 'serve') {
    mkdirSync(stateDir, { recursive: true });
    const server = await startSelfTestModel(workspace);
    // The server records a request before it answers; a short tick later the answer is written too.
    const save = (): void => writeFileSync(requestsFile, JSON.stringify(server.requests));
    const timer = setInterval(save, 200);
    process.on('SIGTERM', () => {
      clearInterval(timer);
      save();
      void server.close().then(() => process.exit(0));
    });
    save();
    writeFileSync(join(stateDir, 'url'), server.url);
    process.stdout.write(`self-test model listening at ${server.url}\n`);
    return undefined;
  }
  let requests: RecordedRequest[];
  try {
    requests = JSON.parse(readFileSync(requestsFile, 'utf8')) as RecordedRequest[];
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `self-test: cannot read ${requestsFile} (${reason}); did the serve step run?\n`,
    );
    return 1;
  }
  const problems = selfTestProblems(requests, workspace);
  for (const problem of problems) process.stderr.write(`self-test: ${problem}\n`);
  if (problems.length === 0) process.stdout.write('self-test: the action made the recorded run\n');
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await main(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
}
