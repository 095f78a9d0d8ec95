/**
 * Traces in a real receiver: `plangate mcp` and `plangate serve` with an
 * OTLP endpoint send their spans to Jaeger, and a refused call appears under
 * the caller's own trace id (MCP `_meta.traceparent`, HTTP `traceparent`)
 * with the decision span and its attributes. No argument value reaches any
 * exported span (a canary test).
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_CHILD, FS_SERVER, makeWorld } from '../mcp/support.js';
import { freePort } from '../http/opa-server.js';
import { findJaeger, startJaeger, tagsOf, type Jaeger } from '../support/jaeger.js';

const bin = findJaeger('the OpenTelemetry trace tests (a refused call as a trace in Jaeger, the canary)');
const CANARY = `canary-${randomBytes(8).toString('hex')}`;

function traceparent(): { traceId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, header: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
}

describe.runIf(bin)('traces, received by Jaeger', () => {
  let jaeger: Jaeger;
  beforeAll(async () => { jaeger = await startJaeger(bin!); }, 60_000);
  afterAll(async () => { await jaeger?.stop(); });

  const otelEnv = () => ({ ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlp, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_SERVICE_NAME: 'plangate-test', OTEL_BSP_SCHEDULE_DELAY: '50' }) as Record<string, string>;

  it('an MCP call refused through the gateway is a tools/call span with the decision span under the client\'s trace id', async () => {
    const w = makeWorld();
    const c = new Client({ name: 'traced-host', version: '1.0.0' });
    await c.connect(new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', CLI_CHILD, 'mcp', '--agent', '0xWORKER', '--rules', w.rules, '--store', w.store, '--audit', w.audit,
        '--name', 'fs', '--', process.execPath, FS_SERVER, w.files],
      env: otelEnv(),
      stderr: 'pipe',
    }));
    const { traceId, header } = traceparent();
    const result = await c.callTool({ name: 'write_file', arguments: { path: `${w.files}/notes.txt`, content: CANARY }, _meta: { traceparent: header } }) as CallToolResult;
    expect(result.isError).toBe(true);
    // Closing the client ends plangate mcp, which flushes its spans.
    await c.close();

    const spans = await jaeger.spans(traceId, 4);
    const byName = new Map(spans.map((s) => [s.operationName, s]));
    expect([...byName.keys()].sort()).toEqual(['plangate.decide', 'plangate.evaluate', 'plangate.facts', 'tools/call write_file']);
    const mcp = byName.get('tools/call write_file')!;
    expect(tagsOf(mcp)).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'write_file', 'network.transport': 'pipe', 'error.type': 'tool_error', 'span.kind': 'server' });
    expect(typeof tagsOf(mcp)['jsonrpc.request.id']).toBe('string');
    const decide = byName.get('plangate.decide')!;
    expect(decide.references.map((r) => r.spanID)).toContain(mcp.spanID);
    expect(tagsOf(decide)).toMatchObject({
      'plangate.seat': '0xWORKER', 'plangate.tool': 'write_file', 'plangate.allowed': false, 'plangate.class': 'effect',
      'plangate.check': 'plan_required', 'plangate.code': 'plan_required:write_file:none', 'plangate.mode': 'side_effects', 'plangate.rule.scope': 'workspace',
    });
    for (const step of ['plangate.facts', 'plangate.evaluate']) expect(byName.get(step)!.references.map((r) => r.spanID)).toContain(decide.spanID);
    expect(JSON.stringify(spans)).not.toContain(CANARY);
  }, 60_000);

  it('an HTTP decision is a decision span under the caller\'s traceparent, with no argument value', async () => {
    const w = makeWorld();
    const tokens = join(w.root, 'tokens.json');
    const token = 'worker-token-for-the-trace-test-01';
    writeFileSync(tokens, JSON.stringify({ tokens: [{ role: 'agent', seat: '0xWORKER', token }] }));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_CHILD, 'serve', '--port', String(port), '--rules', w.rules, '--store', w.store, '--audit', w.audit, '--tokens', tokens], { env: otelEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (b) => { out += String(b); });
    try {
      const base = `http://127.0.0.1:${port}`;
      const end = Date.now() + 30_000;
      for (;;) {
        try { if ((await fetch(`${base}/health`)).ok) break; } catch { /* starting */ }
        if (Date.now() > end) throw new Error(`plangate serve did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const { traceId, header } = traceparent();
      const res = await fetch(`${base}/v1/decide`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: header },
        body: JSON.stringify({ tool: 'github.merge_pull_request', args: { title: CANARY } }),
      });
      expect(await res.json()).toMatchObject({ allowed: false });
      const spans = await jaeger.spans(traceId, 3);
      const decide = spans.find((s) => s.operationName === 'plangate.decide');
      expect(decide && tagsOf(decide)).toMatchObject({ 'plangate.code': 'plan_required:github.merge_pull_request:none', 'plangate.allowed': false });
      expect(JSON.stringify(spans)).not.toContain(CANARY);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 60_000);
});
