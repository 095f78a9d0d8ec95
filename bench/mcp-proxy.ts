/**
 * The floor of an MCP gateway in the MCP benchmark: the SDK alone, a Server
 * that forwards `tools/list` and `tools/call` to one upstream through the
 * SDK's Client, deciding nothing. It is what any gateway built on the SDK
 * pays for the extra hop, so the bench can tell that cost from plangate's.
 *
 *   mcp-proxy.ts stdio COMMAND ARGS…  the upstream is COMMAND over stdio; serves on stdio
 *   mcp-proxy.ts http URL             the upstream is URL over Streamable HTTP (with the
 *                                     gateway's own HTTP client, one upstream session per
 *                                     client session, as the gateway does); serves
 *                                     Streamable HTTP on 127.0.0.1 and prints its URL on stdout
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { nodeFetch } from '../src/adapters/mcp/node-fetch.js';
import { listenLoopback, sessionHttp } from '../test/mcp/session-http.js';

const [mode, ...rest] = process.argv.slice(2);

async function upstream(): Promise<Client> {
  const c = new Client({ name: 'bench-proxy', version: '1.0.0' });
  if (mode === 'http') await c.connect(new StreamableHTTPClientTransport(new URL(rest[0] as string), { fetch: nodeFetch }));
  else await c.connect(new StdioClientTransport({ command: rest[0] as string, args: rest.slice(1), stderr: 'inherit' }));
  return c;
}

function proxy(up: Client): Server {
  const s = new Server({ name: 'bench-proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, (req) => up.listTools(req.params));
  s.setRequestHandler(CallToolRequestSchema, (req) => up.callTool(req.params) as never);
  return s;
}

if (mode === 'http') {
  process.stdout.write(`${await listenLoopback(sessionHttp(async (t) => proxy(await upstream()).connect(t)).http)}\n`);
} else {
  const s = proxy(await upstream());
  s.onclose = () => process.exit(0);
  await s.connect(new StdioServerTransport());
}
