// A stdio MCP server, raw newline-delimited JSON-RPC, whose `huge` tool answers with a message of
// HUGE_MB megabytes (default 40) and whose `small` tool answers normally. It writes its pid to
// stderr so a test can see it was stopped.
import { createInterface } from 'node:readline';

const hugeBytes = Number(process.env.HUGE_MB ?? '40') * 1024 * 1024;
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
process.stderr.write(`pid ${process.pid}\n`);

const tools = [
  { name: 'huge', inputSchema: { type: 'object' } },
  { name: 'small', inputSchema: { type: 'object' } },
];

createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  const answer = (result) => send({ jsonrpc: '2.0', id: request.id, result });
  if (request.method === 'initialize') {
    answer({
      protocolVersion: request.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'huge', version: '1' },
    });
  } else if (request.method === 'tools/list') {
    answer({ tools });
  } else if (request.params?.name === 'huge') {
    answer({ content: [{ type: 'text', text: 'x'.repeat(hugeBytes) }] });
  } else {
    answer({ content: [{ type: 'text', text: 'small answer' }] });
  }
});
