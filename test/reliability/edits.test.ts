/**
 * Rule edits are serialised: concurrent edits in one process, and edits
 * from CLI processes racing HTTP edits, all land — none is validated
 * against a base another edit has already replaced, none is lost.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPlanRule } from '../../src/rules/edit.js';
import { parse } from 'yaml';
import { call, serve, TOKENS, type Served } from '../http/support.js';

const CHILD = join(import.meta.dirname, '..', 'http', 'cli-child.ts');

function cliProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    child.on('exit', (status) => resolve({ status, err }));
  });
}

function crewRules(s: Served): Record<string, unknown> {
  const file = join(s.rules, 'plan-required.yaml');
  return (parse(readFileSync(file, 'utf8')) as { planRequired: { crews: Record<string, unknown> } }).planRequired.crews;
}

let s: Served;
beforeAll(async () => {
  s = await serve();
});
afterAll(async () => {
  await s.close();
});

describe('rule edits are serialised', () => {
  it('twelve concurrent edits in one process all land', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `inproc${i}`);
    const results = await Promise.all(ids.map((id) => setPlanRule(s.rules, { kind: 'crew', id }, { mode: 'spends_only', windowMin: 7 })));
    expect(results.every((r) => r.changed)).toBe(true);
    const crews = crewRules(s);
    for (const id of ids) expect(crews[id], id).toMatchObject({ mode: 'spends_only', windowMin: 7 });
  });

  it('CLI processes racing HTTP edits: every edit lands, none overwrites another', async () => {
    const env = { PLANGATE_RULES: s.rules, PLANGATE_STORE: ':memory:', PLANGATE_AUDIT: join(s.dir, 'cli-audit.jsonl') };
    const cliIds = ['cli0', 'cli1', 'cli2', 'cli3'];
    const httpIds = ['http0', 'http1', 'http2', 'http3', 'http4', 'http5'];
    const [clis, https] = await Promise.all([
      Promise.all(cliIds.map((id) => cliProcess(['plan-required', 'set', '--crew', id, '--mode', 'side_effects'], env))),
      Promise.all(httpIds.map((id) => call(s.url, 'PUT', `/v1/rules/plan-required/crews/${id}`, { token: TOKENS.operator, json: { mode: 'side_effects', windowMin: 9 } }))),
    ]);
    expect(clis.map((c) => [c.status, c.err])).toEqual(cliIds.map(() => [0, '']));
    expect(https.map((h) => h.status)).toEqual(httpIds.map(() => 200));
    const crews = crewRules(s);
    for (const id of [...cliIds, ...httpIds]) expect(crews[id], id).toMatchObject({ mode: 'side_effects' });
  });
});
