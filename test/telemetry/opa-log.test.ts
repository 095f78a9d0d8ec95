/**
 * The OPA-format decision log: events in OPA's shape, argument values masked
 * by default, uploaded as OPA's decision-log plugin uploads them (a gzipped
 * JSON array), and comparable field by field with the events a real `opa`
 * sends for the same decision on plangate's compiled bundle.
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { opaEvent, type OpaDecisionEvent } from '../../src/audit/opa-log.js';
import { openOpaLogSink } from '../../src/audit/opa-log-sink.js';
import { openPlangate } from '../../src/main/open.js';
import { cli, tempDir } from '../cli/run.js';
import { findOpa, freePort, waitFor } from '../http/opa-server.js';

const CANARY = `canary-${randomBytes(8).toString('hex')}`;
const RULES = 'planRequired:\n  workspace: { mode: side_effects, windowMin: 10 }\n';

/** An endpoint that takes uploads as OPA sends them and keeps the events. */
async function receiver(): Promise<{ url: string; events: OpaDecisionEvent[]; encodings: string[]; server: Server }> {
  const events: OpaDecisionEvent[] = [];
  const encodings: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      encodings.push(String(req.headers['content-encoding']));
      const text = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
      events.push(...(JSON.parse(text) as OpaDecisionEvent[]));
      res.writeHead(200).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}`, events, encodings, server };
}

async function until<T>(probe: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

function world(): { dir: string; rules: string } {
  const dir = tempDir('plangate-opa-log-');
  const rules = join(dir, 'rules');
  mkdirSync(rules);
  writeFileSync(join(rules, 'rules.yaml'), RULES);
  return { dir, rules };
}

describe('OPA-format decision events', () => {
  const servers: Server[] = [];
  afterEach(() => { for (const s of servers.splice(0)) s.close(); });

  it('masks every argument value by default, naming each masked pointer; the canary never appears', async () => {
    const w = world();
    const pg = await openPlangate({ rules: w.rules, store: ':memory:', audit: join(w.dir, 'audit.jsonl'), log: () => {} });
    try {
      const input = await pg.gate.inputFor({ agent: '0xWORKER', tool: 'fs.write', args: { title: CANARY, path: 'x' } });
      const decision = await pg.gate.decide({ agent: '0xWORKER', tool: 'fs.write', args: { title: CANARY, path: 'x' } });
      const event = opaEvent(input, decision, { labels: { id: 'i', version: '0.1.0' }, revision: 'r1' });
      expect(event.masked).toEqual(['/input/call/args/title', '/input/call/args/path']);
      expect((event.input as { call: { args: unknown } }).call.args).toEqual({ title: '**MASKED**', path: '**MASKED**' });
      expect(JSON.stringify(event)).not.toContain(CANARY);
      expect(event).toMatchObject({ path: 'plangate/decide', bundles: { plangate: { revision: 'r1' } }, result: { allowed: false } });
      expect(opaEvent(input, decision, { labels: {}, unmasked: true }).input).toEqual(input);
    } finally {
      await pg.close();
    }
  });

  it('uploads batches as OPA does (POST, gzipped JSON array) and sends what is queued on close', async () => {
    const r = await receiver();
    servers.push(r.server);
    const sink = openOpaLogSink(`${r.url}/logs`);
    for (let i = 0; i < 3; i++) sink.record({ decision_id: `d${i}`, path: 'plangate/decide', input: {}, result: {}, timestamp: new Date().toISOString(), labels: {} });
    await sink.close();
    expect(r.events.map((e) => e.decision_id)).toEqual(['d0', 'd1', 'd2']);
    expect(r.encodings.every((e) => e === 'gzip')).toBe(true);
  });

  it('a file gets one event a line', async () => {
    const w = world();
    const file = join(w.dir, 'opa.jsonl');
    const pg = await openPlangate({ rules: w.rules, store: ':memory:', audit: join(w.dir, 'audit.jsonl'), log: () => {}, opaDecisionLog: file });
    await pg.gate.decide({ agent: '0xWORKER', tool: 'github.merge_pull_request', args: { title: CANARY } });
    await pg.close();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ path: 'plangate/decide', result: { allowed: false, code: 'plan_required:github.merge_pull_request:none' } });
    expect(lines[0]).not.toContain(CANARY);
  });
});

const opa = findOpa()?.bin;

describe.runIf(opa)('beside a real opa', () => {
  it('has the fields of the event opa itself sends for the same decision on the compiled bundle, with the same types', async () => {
    const w = world();
    const bundle = join(w.dir, 'bundle.tar.gz');
    expect((await cli(['compile', w.rules, '-o', bundle])).status).toBe(0);
    const r = await receiver();
    const port = await freePort();
    const config = join(w.dir, 'opa.yaml');
    writeFileSync(config, `services:\n  recv:\n    url: ${r.url}\ndecision_logs:\n  service: recv\n  reporting:\n    min_delay_seconds: 1\n    max_delay_seconds: 1\n`);
    const child = spawn(opa!, ['run', '-s', '--addr', `127.0.0.1:${port}`, '-c', config, '-b', bundle], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const pg = await openPlangate({ rules: w.rules, store: ':memory:', audit: join(w.dir, 'audit.jsonl'), log: () => {}, opaDecisionLog: `${r.url}/logs` });
      const call = { agent: '0xWORKER', tool: 'github.merge_pull_request', args: { title: CANARY } };
      const input = await pg.gate.inputFor(call);
      await pg.gate.decide(call);
      await pg.close();
      const ours = await until(() => r.events.find((e) => e.labels['app'] === 'plangate'));
      await waitFor(`http://127.0.0.1:${port}/health`);
      const res = await fetch(`http://127.0.0.1:${port}/v1/data/plangate/decide`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
      const answered = await res.json() as { result: { allowed: boolean; code: string } };
      const theirs = await until(() => r.events.find((e) => e.labels['app'] !== 'plangate'));
      // The same decision, by the same bundle.
      expect(answered.result).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });
      expect((ours.result as { code: string }).code).toBe(answered.result.code);
      // Every field plangate writes is one opa writes, with the same JSON type (plangate adds masked/trace ids as opa does when it masks or traces).
      const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
      for (const key of Object.keys(ours)) {
        if (['masked', 'trace_id', 'span_id', 'bundles'].includes(key)) continue;
        expect(Object.keys(theirs), key).toContain(key);
        expect(typeOf((ours as unknown as Record<string, unknown>)[key]), key).toBe(typeOf((theirs as unknown as Record<string, unknown>)[key]));
      }
      for (const key of ['decision_id', 'path', 'input', 'result', 'timestamp', 'labels']) expect(Object.keys(ours)).toContain(key);
      expect(Object.keys(ours.labels)).toEqual(expect.arrayContaining(Object.keys(theirs.labels).filter((k) => k === 'id' || k === 'version')));
      expect(theirs.path).toBe('plangate/decide');
      expect(Number.isNaN(Date.parse(ours.timestamp))).toBe(false);
      expect(JSON.stringify(ours)).not.toContain(CANARY);
    } finally {
      child.kill('SIGTERM');
      r.server.close();
    }
  }, 60_000);
});
