/**
 * The client command the MCP conformance suite (`@modelcontextprotocol/conformance client`) runs:
 * it appends the scenario server's URL and sets MCP_CONFORMANCE_SCENARIO. This runs the built
 * CLI as CI would — `ci-agent -p … --mcp-config {url}` in a fresh git repository — with a
 * scripted model on loopback that calls every tool the server offers once, then stops.
 *
 * The policy allows the server's tools; with CONFORMANCE_ACCEPT_DEFAULTS=1 it also lists the
 * server in mcp.acceptElicitationDefaults. The CLI's stream-json goes to stdout (the suite keeps
 * it as stdout.txt); the exit code is the CLI's.
 *
 * Usage: tsx __tests__/helpers/conformance-client.ts <server-url>
 */
import { execa, execaSync } from 'execa';
import { SPAWN_LIKE } from './spawn-like.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RecordedRequest, ReplayBlock } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';

const CLI = resolve(import.meta.dirname, '../../dist/cli/index.js');
const SERVER = 'conformance';

interface OfferedTool {
  name: string;
  input_schema?: { properties?: Record<string, { type?: string }>; required?: string[] };
}

/** A value of the schema's type for each required field: enough for a scenario's tool. */
function inputFor(tool: OfferedTool): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const properties = tool.input_schema?.properties ?? {};
  for (const field of tool.input_schema?.required ?? []) {
    const type = properties[field]?.type;
    input[field] = type === 'number' || type === 'integer' ? 2 : type === 'boolean' ? true : 'x';
  }
  return input;
}

/** First turn: one call of each of the server's tools. Later turns: done. */
function modelTurn(request: RecordedRequest): ReplayBlock[] {
  const body = request.body as { tools?: OfferedTool[]; messages?: unknown[] };
  if ((body.messages?.length ?? 0) > 1) return [{ type: 'text', text: 'Done.' }];
  const tools = (body.tools ?? []).filter((tool) => tool.name.startsWith(`mcp__${SERVER}__`));
  if (tools.length === 0) return [{ type: 'text', text: 'The server offers no tools.' }];
  return tools.map((tool, index) => ({
    type: 'tool_use',
    id: `toolu_conformance_${index}`,
    name: tool.name,
    input: inputFor(tool),
  }));
}

async function main(url: string): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'ci-agent-conformance-'));
  try {
    const policy = [
      `permissions: { allow: [mcp__${SERVER}] }`,
      ...(process.env.CONFORMANCE_ACCEPT_DEFAULTS === '1'
        ? [`mcp: { acceptElicitationDefaults: [${SERVER}] }`]
        : []),
    ];
    mkdirSync(join(root, '.github'));
    writeFileSync(join(root, '.github', 'ci-agent.yml'), `${policy.join('\n')}\n`);
    const git = (...args: string[]) => execaSync('git', args, { cwd: root, reject: false });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'fixture');

    const model = await startReplayServer({
      apiKey: 'sk-ant-conformance',
      turns: Array.from({ length: 4 }, () => modelTurn),
    });
    try {
      const config = { mcpServers: { [SERVER]: { type: 'http', url } } };
      const child = execa(
        process.execPath,
        [
          CLI,
          '-p',
          `Call each tool of the ${SERVER} MCP server once.`,
          '--output-format',
          'stream-json',
          '--verbose',
          '--strict-mcp-config',
          '--mcp-config',
          JSON.stringify(config),
        ],
        {
          cwd: root,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: join(root, '.home'),
            ANTHROPIC_API_KEY: 'sk-ant-conformance',
            ANTHROPIC_BASE_URL: model.url,
          },
          ...SPAWN_LIKE,
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
      return await new Promise<number>((done) => child.on('close', (code) => done(code ?? 1)));
    } finally {
      await model.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const url = process.argv.at(-1);
if (!url?.startsWith('http://')) {
  process.stderr.write('usage: conformance-client.ts <server-url> (an http:// URL)\n');
  process.exit(2);
}
process.exitCode = await main(url);
