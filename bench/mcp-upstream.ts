/**
 * The upstream of the MCP benchmark: an SDK McpServer with one tool, `echo`
 * (no annotations, so the gateway decides it as an effect). `stdio`, or
 * `http` (prints its URL on stdout, one line).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { listenLoopback, sessionHttp } from '../test/mcp/session-http.js';

function server(): McpServer {
  const s = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  s.registerTool('echo', { description: 'Echo.', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return s;
}

if (process.argv[2] === 'http') {
  process.stdout.write(`${await listenLoopback(sessionHttp((t) => server().connect(t)).http)}\n`);
} else {
  await server().connect(new StdioServerTransport());
}
