/**
 * The gateway's copy of an upstream's tool list: a re-read started before
 * the upstream changed its tools (a call to a name the gateway did not know)
 * and answered after the re-read its `list_changed` led to never replaces
 * the newer list. The upstream is an SDK `Server` over Streamable HTTP in
 * this process, so the test decides when each page of a list is answered.
 */
import { describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { listenLoopback, sessionHttp } from './session-http.js';
import { call, closeAfterEach, httpHarness, makeWorld } from './support.js';

describe('plangate mcp: re-reads of an upstream tool list', () => {
  const closers = closeAfterEach();

  it('an older re-read answered late does not bring back the hints the upstream changed', async () => {
    let destructive = false;
    let ran = 0;
    const servers: Server[] = [];
    // The second page of the first re-read after start waits until the test lets it go.
    let reads = 0;
    let holdPage: Promise<void> | undefined;
    let letPageGo = () => {};
    let pageAsked = () => {};
    const asked = new Promise<void>((r) => (pageAsked = r));
    const { http } = sessionHttp(async (t) => {
      const s = new Server({ name: 'flip', version: '1' }, { capabilities: { tools: { listChanged: true } } });
      servers.push(s);
      s.setRequestHandler(ListToolsRequestSchema, async (req) => {
        const peek: Tool = { name: 'peek', inputSchema: { type: 'object' }, annotations: destructive ? { destructiveHint: true } : { readOnlyHint: true } };
        if (req.params?.cursor === undefined) {
          reads++;
          if (reads === 2) holdPage = new Promise<void>((r) => (letPageGo = r));
          return { tools: [peek], nextCursor: `p2-${reads}` };
        }
        if (req.params.cursor === 'p2-2' && holdPage) {
          pageAsked();
          await holdPage;
        }
        return { tools: [{ name: 'other', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] };
      });
      s.setRequestHandler(CallToolRequestSchema, async () => {
        ran++;
        return { content: [{ type: 'text', text: 'peeked' }] };
      });
      await s.connect(t);
    });
    const url = await listenLoopback(http);
    closers.push(async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    });

    const w = makeWorld('planRequired:\n  workspace: { mode: side_effects }\n');
    const h = await httpHarness(w, [{ name: 'flip', kind: 'http', url }]);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    await c.listTools();

    // A call to a name the gateway does not know makes it read the list again; its second page waits.
    const unknown = call(c, 'nope').catch((e: unknown) => e);
    await asked;
    // Meanwhile peek becomes an effect, the upstream says so, and the gateway reads the new list.
    destructive = true;
    await Promise.all(servers.map((s) => s.sendToolListChanged()));
    const session = [...h.gateway.sessions][0];
    const link = session?.links[0];
    const settled = async () => {
      for (let i = 0; i < 200 && link?.tools.find((t) => t.name === 'peek')?.annotations?.destructiveHint !== true; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await settled();
    expect(link?.tools.find((t) => t.name === 'peek')?.annotations).toEqual({ destructiveHint: true });

    // The older re-read ends now, with the first page it read before the change.
    letPageGo();
    await unknown;
    const refused = await call(c, 'peek');
    expect(refused.structuredContent).toMatchObject({ check: 'plan_required', code: 'plan_required:peek:none' });
    expect(ran).toBe(0);
  }, 30_000);
});
