/**
 * Metrics over OTLP beside Prometheus: `plangate serve` with an OTLP endpoint
 * exports the metrics `/metrics` shows, with the same names and labels, as
 * the SDK's exporter sends them (OTLP/HTTP JSON here, so the test reads them
 * without a protobuf decoder).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../http/opa-server.js';
import { CLI_CHILD, makeWorld } from '../mcp/support.js';

interface OtlpMetric { name: string; sum?: { dataPoints: Point[] }; gauge?: { dataPoints: Point[] }; histogram?: { dataPoints: Point[] } }
interface Point { attributes?: Array<{ key: string; value: { stringValue?: string } }>; asDouble?: number; count?: string | number }

describe('metrics over OTLP', () => {
  it('plangate serve exports its Prometheus metrics with the same names and labels', async () => {
    const posts: Array<{ path: string; body: unknown }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const rport = await freePort();
    await new Promise<void>((r) => receiver.listen(rport, '127.0.0.1', r));
    const w = makeWorld();
    const tokens = join(w.root, 'tokens.json');
    const token = 'worker-token-for-the-metrics-test1';
    writeFileSync(tokens, JSON.stringify({ tokens: [{ role: 'agent', seat: '0xWORKER', token }] }));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', CLI_CHILD, 'serve', '--port', String(port), '--rules', w.rules, '--store', w.store, '--audit', w.audit, '--tokens', tokens], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${rport}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_TRACES_EXPORTER: 'none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
      const res = await fetch(`${base}/v1/decide`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tool: 'github.merge_pull_request' }) });
      expect(await res.json()).toMatchObject({ allowed: false });
      const prom = await (await fetch(`${base}/metrics`)).text();
      expect(prom).toMatch(/plangate_decisions_total\{outcome="refused",class="effect"\} 1/);

      let metrics: OtlpMetric[] = [];
      const until = Date.now() + 15_000;
      while (Date.now() < until) {
        const latest = [...posts].reverse().find((p) => p.path === '/v1/metrics');
        metrics = ((latest?.body as { resourceMetrics?: Array<{ scopeMetrics: Array<{ scope: { name: string }; metrics: OtlpMetric[] }> }> })?.resourceMetrics ?? [])
          .flatMap((r) => r.scopeMetrics).filter((s) => s.scope.name === 'plangate').flatMap((s) => s.metrics);
        if (metrics.some((m) => m.name === 'plangate_decisions_total' && (m.sum?.dataPoints.length ?? 0) > 0)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const decisions = metrics.find((m) => m.name === 'plangate_decisions_total');
      const point = decisions?.sum?.dataPoints.find((p) => p.attributes?.some((a) => a.key === 'outcome' && a.value.stringValue === 'refused'));
      expect(point?.asDouble).toBe(1);
      expect(point?.attributes?.find((a) => a.key === 'class')?.value.stringValue).toBe('effect');
      const duration = metrics.find((m) => m.name === 'plangate_decision_duration_seconds');
      expect(Number(duration?.histogram?.dataPoints[0]?.count)).toBeGreaterThanOrEqual(1);
      // Every plangate_ metric family Prometheus shows is exported under the same name.
      const families = new Set([...prom.matchAll(/^# TYPE (plangate_\S+) (counter|gauge|histogram)$/gm)].map((m) => m[1]));
      for (const name of families) expect(metrics.map((m) => m.name), name).toContain(name);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      receiver.close();
    }
  }, 60_000);
});
