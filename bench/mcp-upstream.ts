/**
 * The upstream of the MCP benchmark: an SDK McpServer with one tool, `echo`
 * (no annotations, so the gateway decides it as an effect). `stdio`, or
 * `http` (prints its URL on stdout, one line).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function server(): McpServer {
  const s = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  s.registerTool('echo', { description: 'Echo.', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return s;
}

if (process.argv[2] === 'http') {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const sid = req.headers['mcp-session-id'];
    let t = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!t) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      await server().connect(created);
      t = created;
    }
    await t.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`));
} else {
  await server().connect(new StdioServerTransport());
}
