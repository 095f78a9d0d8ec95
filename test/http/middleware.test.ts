/**
 * Embedding: a route of an existing Node server guarded by the gate, with
 * node:http and with Express. A refused call is a 409 with the same body as
 * POST /mcp/call, and the route's own handler never runs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressGuard, guardHandler } from '../../src/adapters/http/middleware.js';
import { createMetrics } from '../../src/adapters/http/metrics.js';
import type { Call } from '../../src/core/types.js';
import { call, serve, TOKENS, type Served } from './support.js';

let s: Served;
beforeAll(async () => {
  s = await serve();
  // desk runs side_effects: every effect of its seats needs a plan.
  await s.pg.store.putCrew({ id: 'desk', parent: null });
  for (const id of ['0xMGR', '0xN', '0xE']) await s.pg.store.putAgent({ id, crew: 'desk' });
});
afterAll(async () => {
  await s?.close();
});

async function listenOn(server: http.Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** The host's own authentication: here, the seat in a header. */
const callOf = (req: http.IncomingMessage): Call => ({ agent: String(req.headers['x-seat']), tool: 'github.merge_pull_request' });

describe.each(['node:http', 'express'] as const)('guarding a route with %s', (kind) => {
  let host: { url: string; close(): Promise<void> };
  const ran: string[] = [];
  const planned = kind === 'node:http' ? '0xN' : '0xE';
  const metrics = createMetrics({ processMetrics: false });

  beforeAll(async () => {
    const options = { gate: s.pg.gate, call: callOf, metrics };
    if (kind === 'node:http') {
      host = await listenOn(http.createServer(guardHandler(options, (req, res, decision) => {
        ran.push(String(req.headers['x-seat']));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ merged: true, via: decision.plan?.id ?? null }));
      })));
    } else {
      const app = express();
      app.post('/merge', expressGuard(options), (req, res) => {
        ran.push(String(req.headers['x-seat']));
        res.json({ merged: true, via: (res.locals['plangate'] as { plan?: { id: string } }).plan?.id ?? null });
      });
      host = await listenOn(http.createServer(app));
    }
  });
  afterAll(async () => {
    await host?.close();
  });

  it('409 with the same body as POST /mcp/call, and the handler never runs', async () => {
    const r = await call(host.url, 'POST', '/merge', { headers: { 'x-seat': '0xMGR' } });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none', agent: '0xMGR', mode: 'side_effects', rule: { scope: 'crew', id: 'desk' } });
    const gateway = await call(s.url, 'POST', '/mcp/call', { token: TOKENS.mgr, json: { name: 'github.merge_pull_request' } });
    expect(gateway.status).toBe(409);
    expect(r.json).toEqual(gateway.json);
    expect(ran).toEqual([]);
  });

  it('runs the handler once the seat has planned, with the decision', async () => {
    await s.pg.gate.say({ thread: 'crew:desk', author: planned, authorKind: 'agent', kind: 'plan', body: 'merge it' });
    const r = await call(host.url, 'POST', '/merge', { headers: { 'x-seat': planned } });
    expect(r.status).toBe(200);
    expect(r.json.merged).toBe(true);
    expect(r.json.via).toMatch(/^\d+$/);
    expect(ran).toEqual([planned]);
    const text = (await metrics.render()).text;
    expect(text).toMatch(/plangate_decisions_total\{outcome="allowed",class="effect"\} 1/);
    expect(text).toMatch(/plangate_decisions_total\{outcome="refused",class="effect"\} 1/);
  });

  it('answers an invalid call with 400 and the error body, without running the handler', async () => {
    const r = await call(host.url, 'POST', '/merge', { headers: { 'x-seat': 'not a seat!' } });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('invalid_input');
    expect(ran).toEqual([planned]);
  });
});

describe('middleware options', () => {
  it('are checked when the guard is built', () => {
    expect(() => guardHandler({ gate: {} as never, call: callOf }, () => {})).toThrow(/options\.gate must have decide/);
    expect(() => expressGuard({ gate: s.pg.gate, call: undefined as never })).toThrow(/options\.call must be a function/);
    expect(() => guardHandler({ gate: s.pg.gate, call: callOf }, undefined as never)).toThrow(/handler must be a function/);
  });
});
