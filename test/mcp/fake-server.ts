/**
 * A configurable MCP server over stdio for the lifecycle tests, on the SDK's
 * low-level `Server`: its first argument (JSON) gives its serverInfo, the tools it
 * lists (as given, unchecked), and how it misbehaves (`hangInitialize`: it
 * never answers initialize; `stderrFlood`: bytes written to stderr at start;
 * `callMs`: how long a call takes; `listLog`: a file that records each
 * tools/list; `pages`, `everyPage`: how its list is paged).
 *
 * `node --import tsx fake-server.ts SPEC`
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema, CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { appendFileSync, writeFileSync } from 'node:fs';

interface Spec {
  name?: string;
  version?: string;
  tools?: unknown[];
  pages?: number;
  /** Every page after the first lists the tools again, named `NAME_pN`. */
  everyPage?: boolean;
  hangInitialize?: boolean;
  stderrFlood?: number;
  pidFile?: string;
  /** How long a tools/call takes to answer (ms). */
  callMs?: number;
  /** A file that gets a line for every tools/list request. */
  listLog?: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
if (spec.pidFile) writeFileSync(spec.pidFile, String(process.pid));
if (spec.stderrFlood) process.stderr.write('x'.repeat(spec.stderrFlood) + '\nlast words\n');
if (spec.hangInitialize) {
  // Reads its stdin and never answers, and stays alive when stdin closes.
  process.stdin.resume();
  process.stdin.on('end', () => {});
  setInterval(() => {}, 1000);
} else {
  const server = new Server({ name: spec.name ?? 'fake', version: spec.version ?? '1.0.0' }, { capabilities: { tools: {} } });
  const tools = spec.tools ?? [];
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    if (spec.listLog) appendFileSync(spec.listLog, 'tools/list\n');
    const page = Number(req.params?.cursor ?? 0);
    const pages = spec.pages ?? 1;
    // Each later page lists the same tools with the page's number, when the spec asks for it.
    const listed = page === 0 ? tools : spec.everyPage ? tools.map((t) => ({ ...(t as object), name: `${(t as { name: string }).name}_p${page}` })) : [];
    return { tools: listed, ...(page + 1 < pages ? { nextCursor: String(page + 1) } : {}) } as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    await new Promise((r) => setTimeout(r, spec.callMs ?? 0));
    return { content: [{ type: 'text', text: `${req.params.name} ran` }] };
  });
  await server.connect(new StdioServerTransport());
}
