import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTokenSet, hashToken, issueTokens, loadTokens, parseTokenEnv, parseTokenFile } from '../../src/adapters/http/auth.js';
import { HttpError } from '../../src/adapters/http/errors.js';
import { PlangateError } from '../../src/core/errors.js';

const WORKER = 'worker-token-0123456789abcdef';
const OPS = 'operator-token-0123456789abcdef';

function thrown(fn: () => unknown): PlangateError {
  try {
    fn();
  } catch (error) {
    return error as PlangateError;
  }
  throw new Error('expected a throw');
}

describe('tokens', () => {
  it('binds an agent token to its seat; operator and policy tokens carry no seat', () => {
    const tokens = createTokenSet([
      { role: 'agent', seat: '0xWORKER', token: WORKER },
      { role: 'operator', name: 'ops', sha256: hashToken(OPS) },
      { role: 'policy', token: 'policy-token-0123456789abcdef' },
    ]);
    expect(tokens.size).toBe(3);
    expect(tokens.authenticate(`Bearer ${WORKER}`)).toEqual({ role: 'agent', seat: '0xWORKER', name: 'agent:0xWORKER' });
    expect(tokens.authenticate(`bearer   ${OPS}`)).toEqual({ role: 'operator', name: 'ops' });
    expect(tokens.authenticate('Bearer policy-token-0123456789abcdef')).toEqual({ role: 'policy', name: 'policy' });
  });

  it('refuses a missing, malformed or unknown token with 401 unauthorized and a Bearer challenge, never echoing the token', () => {
    const tokens = createTokenSet([{ role: 'agent', seat: '0xWORKER', token: WORKER }]);
    for (const header of [undefined, '', `Basic ${WORKER}`, 'Bearer', `Bearer ${WORKER} extra`, 'Bearer bad"chars', `Bearer ${WORKER}x`]) {
      const e = thrown(() => tokens.authenticate(header)) as HttpError;
      expect(e).toBeInstanceOf(HttpError);
      expect(e.code).toBe('unauthorized');
      expect(e.headers['www-authenticate']).toMatch(/^Bearer realm="plangate"/);
      expect(e.message).not.toContain(WORKER);
    }
  });

  it('checks every entry at load: seat only for agents, one of token/sha256, no duplicates, a strong enough token; errors name the entry, not the token', () => {
    const weak = 'short';
    const cases: Array<[unknown[], RegExp]> = [
      [[{ role: 'agent', token: WORKER }], /tokens\[0\]\.seat is required/],
      [[{ role: 'operator', seat: '0xW', token: OPS }], /only an agent token is bound to a seat/],
      [[{ role: 'operator' }], /exactly one of "token" and "sha256"/],
      [[{ role: 'operator', token: OPS, sha256: hashToken(OPS) }], /exactly one/],
      [[{ role: 'operator', token: OPS }, { role: 'policy', sha256: hashToken(OPS) }], /tokens\[1\]: the same token is listed twice/],
      [[{ role: 'operator', token: OPS }, { role: 'operator', token: WORKER }], /"operator" is used twice/],
      [[{ role: 'operator', token: weak }], /tokens\[0\]\.token must match pattern/],
      [[{ role: 'root', token: OPS }], /tokens\[0\]\.role must be one of agent, operator, policy/],
      [[{ role: 'operator', token: OPS, extra: 1 }], /unknown field "extra"/],
    ];
    for (const [entries, message] of cases) {
      const e = thrown(() => createTokenSet(entries as never));
      expect(e.code).toBe('invalid_input');
      expect(e.message).toMatch(message);
      expect(e.message).not.toContain(OPS);
      expect(e.message).not.toContain(weak);
    }
  });

  it('has reviewer and orchestrator tokens, from a file or the environment, bound to no seat', () => {
    const reviewer = 'reviewer-secret-0123456789';
    const orchestrator = 'orchestrator-secret-0123456789';
    const tokens = createTokenSet(parseTokenEnv(`reviewer=${reviewer},orchestrator=${orchestrator}`));
    expect(tokens.authenticate(`Bearer ${reviewer}`)).toEqual({ role: 'reviewer', name: 'reviewer' });
    expect(tokens.authenticate(`Bearer ${orchestrator}`)).toEqual({ role: 'orchestrator', name: 'orchestrator' });
    expect(() => createTokenSet([{ role: 'reviewer', seat: '0xW', token: reviewer }])).toThrowError(/only an agent token is bound to a seat/);
    const file = parseTokenFile(JSON.stringify({ tokens: [{ role: 'orchestrator', name: 'ci', sha256: hashToken(orchestrator) }] }), 't.json');
    expect(createTokenSet(file).authenticate(`Bearer ${orchestrator}`)).toEqual({ role: 'orchestrator', name: 'ci' });
    expect(() => parseTokenFile(JSON.stringify({ tokens: [{ role: 'admin', token: reviewer }] }), 't.json')).toThrowError(PlangateError);
  });

  it('reads PLANGATE_TOKENS as ROLE=TOKEN and agent:SEAT=TOKEN entries (a seat may contain ":")', () => {
    expect(parseTokenEnv(`operator=${OPS}, agent:0xW:2=${WORKER}\npolicy=${WORKER}==`)).toEqual([
      { role: 'operator', token: OPS },
      { role: 'agent', seat: '0xW:2', token: WORKER },
      { role: 'policy', token: `${WORKER}==` },
    ]);
    expect(() => parseTokenEnv(`admin=${OPS}`)).toThrow(/entry 1: expected ROLE=TOKEN/);
    expect(() => parseTokenEnv('operator')).toThrow(/entry 1/);
  });

  it('loads a file and the environment together; a file that is not JSON or not a token file names itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-tokens-'));
    const file = join(dir, 'tokens.json');
    writeFileSync(file, JSON.stringify({ tokens: [{ role: 'agent', seat: '0xWORKER', sha256: hashToken(WORKER) }] }));
    const tokens = await loadTokens({ file, env: { PLANGATE_TOKENS: `operator=${OPS}` } });
    expect(tokens.size).toBe(2);
    expect(tokens.authenticate(`Bearer ${OPS}`).role).toBe('operator');
    const viaEnv = await loadTokens({ env: { PLANGATE_TOKENS_FILE: file } });
    expect(viaEnv.authenticate(`Bearer ${WORKER}`)).toMatchObject({ seat: '0xWORKER' });
    await expect(loadTokens({ env: {} })).rejects.toThrow(/no tokens/);
    await expect(loadTokens({ file: join(dir, 'missing.json'), env: {} })).rejects.toThrow(/cannot be read: ENOENT/);
    writeFileSync(file, '{ nope');
    await expect(loadTokens({ file, env: {} })).rejects.toThrow(/is not JSON/);
    expect(() => parseTokenFile('{"tokens": {}}', 'x.json')).toThrow(/x\.json\.tokens must be array/);
  });

  it('issues a demo set whose file holds only digests', () => {
    const { issued, file } = issueTokens(['0xWORKER', '0xMGR']);
    expect(issued.map((t) => t.name)).toEqual(['agent:0xWORKER', 'agent:0xMGR', 'operator', 'reviewer', 'orchestrator', 'policy']);
    const text = JSON.stringify(file);
    for (const t of issued) {
      expect(t.token).toMatch(/^pg_[A-Za-z0-9_-]{43}$/);
      expect(text).not.toContain(t.token);
    }
    const tokens = createTokenSet(parseTokenFile(text, 'demo'));
    expect(tokens.authenticate(`Bearer ${issued[0]!.token}`)).toEqual({ role: 'agent', seat: '0xWORKER', name: 'agent:0xWORKER' });
  });
});
