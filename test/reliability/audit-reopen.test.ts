/**
 * The audit sink: a failure shows in the status (/health, /metrics) and the
 * sink recovers by itself by reopening the file; `reopen()` (SIGHUP in
 * `plangate serve`) follows a log rotation to the new file.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonlAuditSink } from '../../src/audit/jsonl.js';
import type { AuditEvent } from '../../src/audit/port.js';
import { call, EXAMPLES, serve, TOKENS } from '../http/support.js';

const CHILD = join(import.meta.dirname, '..', 'http', 'cli-child.ts');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const event = (tool: string): AuditEvent => ({
  type: 'PlanRequiredBlocked', time: new Date(0).toISOString(), agent: '0xW', crew: null, tool, toolClass: 'effect',
  mode: 'side_effects', code: `plan_required:${tool}:none`, runId: null, rule: { scope: 'workspace' },
});

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

describe('the audit sink', () => {
  it('reopen() follows a rotation: later lines go to the new file, none is lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-audit-'));
    const file = join(dir, 'audit.jsonl');
    const sink = createJsonlAuditSink(file);
    await sink.record(event('a'));
    renameSync(file, `${file}.1`);
    await sink.record(event('b')); // still the old file: rotation is not seen until reopened
    await sink.reopen();
    await sink.record(event('c'));
    await sink.close();
    expect(lines(`${file}.1`).map((l) => JSON.parse(l).tool)).toEqual(['a', 'b']);
    expect(lines(file).map((l) => JSON.parse(l).tool)).toEqual(['c']);
    expect(sink.state()).toEqual({ ok: true, failures: 0, reopens: 1 });
  });

  it('a failure shows in /health and /metrics, and the sink recovers by itself', async () => {
    const s = await serve();
    try {
      // Rotate the file away and put a directory where it was: reopening cannot work until it is gone.
      const sink = s.pg.audit as ReturnType<typeof createJsonlAuditSink>;
      rmSync(s.auditFile, { force: true });
      mkdirSync(s.auditFile);
      await expect(sink.reopen()).rejects.toThrow(/EISDIR/);
      expect(sink.state()).toMatchObject({ ok: false, error: expect.stringContaining('EISDIR'), failures: 1 });
      const refused = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request' } });
      expect(refused.status).toBe(409); // the decision stands, the sink failing or not
      const h = await call(s.url, 'GET', '/health', { token: TOKENS.operator });
      expect(h.json).toMatchObject({ status: 'degraded', audit: { ok: false } });
      expect(h.json.reasons).toEqual([expect.stringMatching(/^the audit log cannot be written since .*EISDIR/)]);
      const m = await call(s.url, 'GET', '/metrics');
      expect(m.text).toMatch(/^plangate_audit_failed 1$/m);
      expect(m.text).toMatch(/^plangate_audit_failures_total [1-9]\d*$/m);

      rmSync(s.auditFile, { recursive: true });
      const end = Date.now() + 5000;
      while (!sink.state().ok && Date.now() < end) await sleep(50);
      expect(sink.state().ok).toBe(true);
      expect((await call(s.url, 'GET', '/health')).json).toEqual({ status: 'ok' });
      await call(s.url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request' } });
      expect(s.audit().map((e) => e['type'])).toEqual(['PlanRequiredBlocked']);
      expect((await call(s.url, 'GET', '/metrics')).text).toMatch(/^plangate_audit_failed 0$/m);
    } finally {
      await s.close();
    }
  });

  it('plangate serve reopens the audit file on SIGHUP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-hup-'));
    const rules = join(dir, 'rules');
    cpSync(EXAMPLES, rules, { recursive: true });
    mkdirSync(join(dir, 'data'));
    const audit = join(dir, 'data', 'audit.jsonl');
    const env = { PATH: process.env['PATH'], PLANGATE_RULES: rules, PLANGATE_STORE: ':memory:', PLANGATE_AUDIT: audit, PLANGATE_PORT: '0', PLANGATE_TOKENS: `agent:0xWORKER=${TOKENS.worker}` };
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    try {
      const end = Date.now() + 20_000;
      while (!/serving (http:\/\/\S+) /.test(err) && Date.now() < end) await sleep(50);
      const url = /serving (http:\/\/\S+) /.exec(err)?.[1] as string;
      const refuse = () => call(url, 'POST', '/mcp/call', { token: TOKENS.worker, json: { name: 'github.merge_pull_request' } });
      expect((await refuse()).status).toBe(409);
      renameSync(audit, `${audit}.1`);
      child.kill('SIGHUP');
      while (!err.includes('SIGHUP: audit log') && Date.now() < end) await sleep(20);
      expect(err).toContain(`SIGHUP: audit log ${audit} reopened`);
      expect((await refuse()).status).toBe(409);
      expect(lines(`${audit}.1`)).toHaveLength(1);
      expect(lines(audit)).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 30_000);
});
