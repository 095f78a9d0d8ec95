/**
 * The trust suite: every claim a hostile agent could make beyond its own
 * seat — a run, a delegation, a thread, a kind, another seat's facts — tried
 * over real HTTP on loopback with real tokens, next to the honest version
 * that must keep working. Cases are data (cases/trust-*.yaml): each is a
 * list of steps, run in order against a fresh server, each request with the
 * status, code, body, forwarded calls and audit events it must produce.
 *
 * A step is either a request (`as`, `request: METHOD /path`, `json`,
 * `expect`, `audit`, `forwarded`, `save`) or a host step: `advance: 30m`
 * moves the host's clock forward. `${name}` in a path or a JSON string is a
 * value saved by an earlier step (`save: { name: json.path }`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { call, serve, TOKENS, type Served } from '../http/support.js';

type TokenName = keyof typeof TOKENS | 'none';

interface Step {
  note?: string;
  as?: TokenName;
  request?: string;
  json?: unknown;
  expect?: { status: number; code?: string; body?: unknown; notContains?: string[] };
  /** The audit events this request adds, each matched as a subset, in order (`[]`: none). */
  audit?: Array<Record<string, unknown>>;
  /** How many calls reach the executor (default: not checked). */
  forwarded?: number;
  save?: Record<string, string>;
  advance?: string;
}

interface Case {
  note: string;
  steps: Step[];
}

const CASES = join(import.meta.dirname, 'cases');
const files = readdirSync(CASES).filter((f) => /^trust-.*\.yaml$/.test(f)).sort();

function duration(spec: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(spec);
  if (!m) throw new Error(`bad duration ${spec}`);
  return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
}

function fill(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{(\w+)\}/g, (_, k: string) => {
      if (!(k in vars)) throw new Error(`no saved value ${k}`);
      return vars[k] as string;
    });
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  return value;
}

function pick(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

/** The org every case starts with: desk ← trading (0xWORKER), desk ← ops (0xBOT), mgmt (0xMGR). */
async function seed(s: Served): Promise<void> {
  for (const [path, body] of [
    ['/v1/org/crews/desk', {}],
    ['/v1/org/crews/trading', { parent: 'desk' }],
    ['/v1/org/crews/ops', { parent: 'desk' }],
    ['/v1/org/crews/mgmt', {}],
    ['/v1/org/agents/0xWORKER', { crew: 'trading' }],
    ['/v1/org/agents/0xBOT', { crew: 'ops' }],
    ['/v1/org/agents/0xMGR', { crew: 'mgmt' }],
  ] as const) {
    expect((await call(s.url, 'PUT', path, { token: TOKENS.operator, json: body })).status).toBe(200);
  }
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('trust: claims beyond the seat are checked against the record', () => {
  it.each(files)('%s', async (file) => {
    const c = parse(readFileSync(join(CASES, file), 'utf8')) as Case;
    let offset = 0;
    const s = await serve({ clock: () => Date.now() + offset });
    served = s;
    await seed(s);
    const vars: Record<string, string> = {};

    for (const [i, step] of c.steps.entries()) {
      const where = `${file} step ${i + 1}${step.note ? ` (${step.note})` : ''}`;
      if (step.advance !== undefined) {
        offset += duration(step.advance);
        continue;
      }
      if (!step.request || !step.expect) throw new Error(`${where}: a step needs request and expect, or advance`);
      const [method, rawPath] = step.request.split(' ') as [string, string];
      const path = fill(rawPath, vars) as string;
      const before = s.audit().length;
      const sent = s.upstream.received.length;
      const token = step.as === undefined || step.as === 'none' ? undefined : TOKENS[step.as];
      const r = await call(s.url, method, path, {
        ...(token !== undefined ? { token } : {}),
        ...(step.json !== undefined ? { json: fill(step.json, vars) } : {}),
      });
      const code = r.json?.error?.code ?? r.json?.code;
      expect({ where, status: r.status, ...(step.expect.code !== undefined ? { code } : {}) }, r.text)
        .toEqual({ where, status: step.expect.status, ...(step.expect.code !== undefined ? { code: step.expect.code } : {}) });
      if (step.expect.body !== undefined) expect(r.json, where).toMatchObject(fill(step.expect.body, vars) as object);
      for (const text of step.expect.notContains ?? []) expect(r.text, `${where}: must not disclose ${text}`).not.toContain(fill(text, vars));
      if (step.audit !== undefined) {
        const added = s.audit().slice(before);
        expect(added.length, `${where}: audit events ${JSON.stringify(added)}`).toBe(step.audit.length);
        step.audit.forEach((e, k) => expect(added[k], where).toMatchObject(fill(e, vars) as object));
        // Never a message body or a token in the audit.
        const text = JSON.stringify(added);
        for (const t of Object.values(TOKENS)) expect(text).not.toContain(t);
      }
      if (step.forwarded !== undefined) expect(s.upstream.received.length - sent, `${where}: calls forwarded`).toBe(step.forwarded);
      for (const [name, p] of Object.entries(step.save ?? {})) vars[name] = String(pick(r.json, p));
    }
  });
});
