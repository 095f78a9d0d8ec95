/**
 * An evaluation failure the input caused is the caller's error (400), never
 * 503 `policy_unavailable`, which tells a client to retry an outage: a call
 * time out of range, and a file fact whose size no policy arithmetic takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluationFailure } from '../../src/engine/policy.js';
import { call, serve, TOKENS, type Served } from './support.js';

describe('evaluation failures the input caused', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(() => s.close());

  it("refuses an operator's explain at a time out of range with 400 invalid_input", async () => {
    for (const at of ['9999-12-31T23:59:59Z', 253402300799000, '2100-01-01T00:00:00.001Z']) {
      const res = await call(s.url, 'POST', '/v1/explain', { token: TOKENS.operator, json: { agent: '0xWORKER', tool: 'github.merge_pull_request', at } });
      expect(res.status, res.text).toBe(400);
      expect(res.json.error.code).toBe('invalid_input');
      expect(res.json.error.message).toMatch(/call\.at must be before 2100-01-01T00:00:00\.000Z/);
    }
    const inRange = await call(s.url, 'POST', '/v1/explain', { token: TOKENS.operator, json: { agent: '0xWORKER', tool: 'github.merge_pull_request', at: '2099-12-31T23:59:59Z' } });
    expect(inRange.status, inRange.text).toBe(200);
  });

  it('answers the data API 400 for a file size of 1e300, and still evaluates the next input', async () => {
    const input = {
      now: Date.now(),
      call: { agent: '0xWORKER', tool: 'fs.read_file', delegatedBy: [], args: { path: '/w/big.log' } },
      agent: { id: '0xWORKER', known: true, crews: ['desk'] },
      upstream: [], messages: [],
      files: { '/w/big.log': { path: '/w/big.log', kind: 'file', size: 1e300 } },
    };
    const res = await call(s.url, 'POST', '/v1/data/plangate/decide', { token: TOKENS.policy, json: { input } });
    expect(res.status, res.text).toBe(400);
    expect(res.text).toMatch(/invalid_input|the policy cannot evaluate this input/);
    expect(res.text).not.toMatch(/policy_unavailable/);
    const fine = await call(s.url, 'POST', '/v1/data/plangate/decide', { token: TOKENS.policy, json: { input: { ...input, files: { '/w/big.log': { path: '/w/big.log', kind: 'file', size: 10 } } } } });
    expect(fine.status, fine.text).toBe(200);
    expect(fine.json.result.allowed).toBe(true);
  });

  it('keeps a trap of the WebAssembly machine policy_unavailable', () => {
    const trap = Object.assign(new Error('unreachable'), { name: 'RuntimeError' });
    expect(evaluationFailure(trap).code).toBe('policy_unavailable');
    expect(evaluationFailure(new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded')).code).toBe('policy_unavailable');
    expect(evaluationFailure('strings: get uint failed').code).toBe('invalid_input');
  });
});
