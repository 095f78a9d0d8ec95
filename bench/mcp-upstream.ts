/**
 * The upstream of the MCP benchmark: an SDK McpServer with two tools, `echo`
 * and `big` (a 1 MiB text; no annotations, so the gateway decides each as an effect). `stdio`, or
 * `http` (prints its URL on stdout, one line).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { listenLoopback, sessionHttp } from '../test/mcp/session-http.js';

/** The result of `big`: 1 MiB of text. */
const BIG = 'x'.repeat(1024 * 1024);

function server(): McpServer {
  const s = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  s.registerTool('echo', { description: 'Echo.', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  s.registerTool('big', { description: 'A text of 1 MiB.' }, async () => ({ content: [{ type: 'text', text: BIG }] }));
  return s;
}

if (process.argv[2] === 'http') {
  process.stdout.write(`${await listenLoopback(sessionHttp((t) => server().connect(t)).http)}\n`);
} else {
  await server().connect(new StdioServerTransport());
}
