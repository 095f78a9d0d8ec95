/**
 * `plangate serve --decision-log FILE` as a process: every decision's policy
 * input lands in the log, never a message body, and `plangate diff --replay`
 * reads it back.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../../src/audit/decision-log.js';
import { cli } from '../cli/run.js';
import { call } from '../http/support.js';
import { EXAMPLES } from './support.js';

const CHILD = join(import.meta.dirname, '..', 'http', 'cli-child.ts');
const WORKER = 'worker-token-0123456789abcdef';
const OPS = 'operator-token-0123456789abcdef';

describe('plangate serve --decision-log', () => {
  it('logs the input of every decision without message bodies, for diff --replay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-dlog-'));
    const rules = join(dir, 'rules');
    cpSync(EXAMPLES, rules, { recursive: true });
    const file = join(dir, 'decisions.jsonl');
    const env = {
      PATH: process.env['PATH'],
      PLANGATE_RULES: rules,
      PLANGATE_STORE: join(dir, 'store.db'),
      PLANGATE_AUDIT: join(dir, 'audit.jsonl'),
      PLANGATE_PORT: '0',
      PLANGATE_TOKENS: `agent:0xWORKER=${WORKER} operator=${OPS}`,
    };
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, 'serve', '--decision-log', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /serving (http:\/\/\S+) /.exec(err);
        if (m) resolve(m[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${err}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      expect((await call(url, 'PUT', '/v1/org/crews/desk', { token: OPS, json: {} })).status).toBe(200);
      expect((await call(url, 'PUT', '/v1/org/agents/0xWORKER', { token: OPS, json: { crew: 'desk' } })).status).toBe(200);
      const refused = await call(url, 'POST', '/v1/decide', { token: WORKER, json: { tool: 'github.merge_pull_request' } });
      expect(refused.json).toMatchObject({ allowed: false });
      expect((await call(url, 'POST', '/v1/say', { token: WORKER, json: { thread: 'agent:0xWORKER', kind: 'plan', body: 'SECRET merge plan' } })).status).toBe(201);
      const allowed = await call(url, 'POST', '/v1/decide', { token: WORKER, json: { tool: 'github.merge_pull_request', runId: 'r-1' } });
      expect(allowed.json).toMatchObject({ allowed: true });
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('SECRET');
    const records = text.trim().split('\n').map((l) => JSON.parse(l) as DecisionRecord);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ v: 1, allowed: false, check: 'plan_required', code: 'plan_required:github.merge_pull_request:none', input: { call: { agent: '0xWORKER', tool: 'github.merge_pull_request' }, agent: { id: '0xWORKER', crews: ['desk'] }, messages: [] } });
    expect(records[1]?.input.messages).toHaveLength(1);
    expect(records[1]?.input.call.runId).toBe('r-1');
    expect(records[1]?.rules).toMatch(/^[0-9a-f]{64}$/);

    // The same rules replay to the same outcomes; the worker's carve-out lets the refused call through.
    const carved = mkdtempSync(join(tmpdir(), 'plangate-dlog-new-'));
    cpSync(rules, carved, { recursive: true });
    writeFileSync(join(carved, 'seats.yaml'), 'planRequired:\n  agents:\n    0xWORKER: { mode: off }\n    0xBOT: { mode: off }\n');
    expect((await cli(['diff', rules, rules, '--replay', file])).status).toBe(0);
    const r = await cli(['diff', rules, carved, '--replay', file, '--format', 'json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.out).replay).toMatchObject({ replayed: 2, toAllowed: { total: 1 }, toRefused: { total: 0 } });
  });
});
