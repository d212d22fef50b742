// A stdio MCP server whose `ask` tool sends the client the elicitation request given as its
// input ({ params }) and answers with the client's reply as JSON text; with { exit: true } it
// exits once the reply came, instead of answering.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'elicit', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'ask', inputSchema: { type: 'object', properties: { params: {} } } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const reply = await server.request(
    { method: 'elicitation/create', params: request.params.arguments.params },
    ElicitResultSchema,
  );
  if (request.params.arguments.exit === true) process.exit(3);
  return { content: [{ type: 'text', text: JSON.stringify(reply) }] };
});
await server.connect(new StdioServerTransport());
