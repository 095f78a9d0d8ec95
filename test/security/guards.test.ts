/**
 * The guard suite: every way a hostile agent could pad past the read guard,
 * use it as a probe, talk past a hold while something is broken, or make
 * the server fail on its input — over real HTTP on loopback with real
 * tokens, next to the honest version that must keep working. Cases are data
 * (cases/guards-*.yaml): each is a list of steps against a fresh server.
 *
 * A case may ask for a `boot` (holds on record before start, unreadable
 * rules, a corrupt policy). A step is a request — `as` (a token name, or
 * `none`), `request: METHOD /path`, a body as `json` or as `raw` JSON text
 * (`@DEEP(n)` in it becomes n levels of nesting; `\ud800` stays a lone
 * surrogate), `expect` (status, code, a body subset, texts it must not
 * contain), `audit` (the events it adds, each a subset, in order) and
 * `forwarded` (calls that reached the executor) — or a host step:
 * `storeDown: true|false`. `${name}` is a path of the server (root,
 * outside, big, dir, ceiling), or `${pad:N:TEXT}` N copies of TEXT.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { call, serveGuarded, TOKENS, type Boot, type GuardServer } from './guards-support.js';

type TokenName = keyof typeof TOKENS | 'none';

interface Step {
  note?: string;
  as?: TokenName;
  request?: string;
  json?: unknown;
  raw?: string;
  expect?: { status: number; code?: string; body?: unknown; notContains?: string[]; contains?: string[] };
  audit?: Array<Record<string, unknown>>;
  forwarded?: number;
  storeDown?: boolean;
}

interface Case {
  note: string;
  boot?: Boot;
  steps: Step[];
}

const CASES = join(import.meta.dirname, 'cases');
const files = readdirSync(CASES).filter((f) => /^guards-.*\.yaml$/.test(f)).sort();

function fill(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value
      .replace(/\$\{pad:(\d+):([^}]*)\}/g, (_, n: string, text: string) => text.repeat(Number(n)))
      .replace(/\$\{(\w+)\}/g, (_, k: string) => {
        if (!(k in vars)) throw new Error(`no value ${k}`);
        return vars[k] as string;
      });
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  return value;
}

function deep(text: string): string {
  return text.replace(/"?@DEEP\((\d+)\)"?/g, (_, n: string) => '{"a":['.repeat(Number(n) / 2) + '1' + ']}'.repeat(Number(n) / 2));
}

let served: GuardServer | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('guards: the read guard, holds under failure, and hostile input', () => {
  it.each(files)('%s', async (file) => {
    const c = parse(readFileSync(join(CASES, file), 'utf8')) as Case;
    const s = await serveGuarded(c.boot ?? {});
    served = s;
    for (const [i, step] of c.steps.entries()) {
      const where = `${file} step ${i + 1}${step.note ? ` (${step.note})` : ''}`;
      if (step.storeDown !== undefined) {
        s.storeDown(step.storeDown);
        continue;
      }
      if (!step.request || !step.expect) throw new Error(`${where}: a step needs request and expect, or storeDown`);
      const [method, rawPath] = step.request.split(' ') as [string, string];
      const before = s.audit().length;
      const sent = s.upstream.received.length;
      const token = step.as === undefined || step.as === 'none' ? undefined : TOKENS[step.as];
      const body = step.raw !== undefined ? deep(fill(step.raw, s.vars) as string) : step.json !== undefined ? JSON.stringify(fill(step.json, s.vars)) : undefined;
      const r = await call(s.url, method, fill(rawPath, s.vars) as string, {
        ...(token !== undefined ? { token } : {}),
        ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}),
      });
      const code = r.json?.error?.code ?? r.json?.code;
      expect({ where, status: r.status, ...(step.expect.code !== undefined ? { code } : {}) }, r.text)
        .toEqual({ where, status: step.expect.status, ...(step.expect.code !== undefined ? { code: step.expect.code } : {}) });
      if (step.expect.body !== undefined) expect(r.json, where).toMatchObject(fill(step.expect.body, s.vars) as object);
      for (const text of step.expect.contains ?? []) expect(r.text, where).toContain(fill(text, s.vars));
      for (const text of step.expect.notContains ?? []) expect(r.text, `${where}: must not disclose ${text}`).not.toContain(fill(text, s.vars));
      if (step.audit !== undefined) {
        const added = s.audit().slice(before);
        expect(added.length, `${where}: audit events ${JSON.stringify(added)}`).toBe(step.audit.length);
        step.audit.forEach((e, k) => expect(added[k], where).toMatchObject(fill(e, s.vars) as object));
      }
      if (step.forwarded !== undefined) expect(s.upstream.received.length - sent, `${where}: calls forwarded`).toBe(step.forwarded);
    }
  }, 30_000);
});
