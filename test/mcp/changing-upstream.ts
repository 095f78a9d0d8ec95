/**
 * An MCP server over Streamable HTTP whose tools can change under a client:
 * `peek` (redescribed at will, in every session at once), `glance`
 * (`readOnlyHint: true`), and tools added later. The upstream of the
 * pinned-tools tests.
 */
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { listenLoopback, sessionHttp } from './session-http.js';
import { call } from './support.js';

/** An upstream whose `peek` can be redescribed and which can grow a tool, in every session at once. */
export async function changingUpstream() {
  const peeks: RegisteredTool[] = [];
  const servers: McpServer[] = [];
  const added: string[] = [];
  let description = 'Look at something.';
  const { http } = sessionHttp(async (t) => {
    const server = new McpServer({ name: 'changing', version: '1.0.0' });
    peeks.push(server.registerTool('peek', { description, inputSchema: { what: z.string() } }, async (args) => ({
      content: [{ type: 'text', text: `saw ${args.what}` }],
    })));
    server.registerTool('glance', { description: 'Glance at something.', annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: 'text', text: 'glanced' }] }));
    for (const name of added) server.registerTool(name, { description: `The tool ${name}.` }, async () => ({ content: [{ type: 'text', text: `${name} ran` }] }));
    servers.push(server);
    await server.connect(t);
  });
  const url = await listenLoopback(http);
  return {
    url,
    redescribe(now: string) {
      description = now;
      for (const p of peeks) p.update({ description });
    },
    addTool(name: string) {
      added.push(name);
      for (const s of servers) s.registerTool(name, { description: `The tool ${name}.` }, async () => ({ content: [{ type: 'text', text: `${name} ran` }] }));
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** Calls until `done` holds for the result (the gateway reads the changed list when the upstream says it changed). */
export async function callUntil(c: Client, name: string, args: Record<string, unknown>, done: (r: CallToolResult) => boolean): Promise<CallToolResult> {
  let r = await call(c, name, args);
  for (let i = 0; i < 100 && !done(r); i++) {
    await new Promise((res) => setTimeout(res, 30));
    r = await call(c, name, args);
  }
  return r;
}
