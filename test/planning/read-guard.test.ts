/**
 * The read guard against real files: a sparse 5 MiB file, a small one, a
 * symlink, a directory and a missing path, in a temp directory that the gate
 * uses as its base for relative paths. And how the three checks compose.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CallRefusedError, ErrorCode, PlanRequiredError } from '../../src/core/errors.js';
import { fileFact } from '../../src/gate/files.js';
import { eventTypes, planningWorld, type PlanningWorld } from './support.js';

const MIB = 1024 * 1024;

const RULES = `
planRequired:
  workspace: { mode: side_effects }
tools:
  read: [fs.read_file, fs.cat]
  say: [plangate_submit_plan]
planningGate:
  defaults:
    whitelist: [fs.read_file]
    readGuardMaxBytes: 1048576
  profiles:
    unguarded: { readGuardMaxBytes: 0 }
  agents: { 0xOPS: unguarded }
readGuard:
  tools:
    fs.read_file: { path: path, range: [offset, limit] }
    fs.cat: { path: file }
`;

let dir: string;
let big: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plangate-read-'));
  big = join(dir, 'big.log');
  writeFileSync(big, '');
  truncateSync(big, 5 * MIB); // sparse: 5 MiB on paper, nothing on disk
  writeFileSync(join(dir, 'small.txt'), 'tiny');
  writeFileSync(join(dir, 'edge.bin'), '');
  truncateSync(join(dir, 'edge.bin'), MIB); // exactly the ceiling
  mkdirSync(join(dir, 'logs'));
  symlinkSync(big, join(dir, 'logs', 'current.log'));
  symlinkSync(join(dir, 'logs'), join(dir, 'alias'));
});

const W = '0xWORKER';
const read = (path: unknown, more: Record<string, unknown> = {}) => ({ agent: W, tool: 'fs.read_file', args: { path, ...more } });

async function world(): Promise<PlanningWorld> {
  return planningWorld(RULES, { readBase: dir });
}

describe('read guard', () => {
  it('refuses a whole-file read over the ceiling, says to sample or search, and audits the sizes', async () => {
    const w = await world();
    const d = await w.gate.decide(read('big.log'));
    expect(d).toMatchObject({ allowed: false, check: 'read_guard', code: 'read_guard:fs.read_file' });
    expect(d.message).toBe(
      'read_guard:fs.read_file — this call reads all of big.log (5242880 bytes), more than the 1048576-byte ceiling for whole-file reads ' +
        'set by the planning-gate defaults (rules.yaml:8:3). Sample it instead — pass offset or limit to read a part of it — or search it ' +
        'for what you need, then carry on.',
    );
    expect(d.checks?.readGuard).toEqual({
      status: 'over', applies: true, refused: true, maxBytes: MIB, path: 'big.log',
      file: { path: 'big.log', resolved: realpathSync(big), kind: 'file', size: 5 * MIB },
    });
    expect(d.needs).toBeUndefined();
    expect(w.audit.events).toEqual([{
      type: 'ReadGuardBlocked', time: new Date(w.now()).toISOString(), agent: W, crew: 'trading', tool: 'fs.read_file',
      code: 'read_guard:fs.read_file', runId: null, path: 'big.log', resolved: realpathSync(big), sizeBytes: 5 * MIB, maxBytes: MIB,
    }]);
    const err = await w.gate.guard(read('big.log'), () => 'read').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallRefusedError);
    expect(err).toMatchObject({ code: ErrorCode.ReadGuard, refusal: 'read_guard:fs.read_file', tool: 'fs.read_file' });
  });

  it('lets through a file at or under the ceiling', async () => {
    const w = await world();
    for (const path of ['small.txt', 'edge.bin']) {
      const d = await w.gate.decide(read(path));
      expect(d.allowed, path).toBe(true);
      expect(d.checks?.readGuard.status, path).toBe('under');
    }
    expect(w.audit.events).toEqual([]);
  });

  it('lets through a read that asks for a range, whatever the size; a null range argument is no range', async () => {
    const w = await world();
    for (const more of [{ offset: 0 }, { limit: 200 }, { offset: 4096, limit: 200 }]) {
      const d = await w.gate.decide(read('big.log', more));
      expect(d.allowed).toBe(true);
      expect(d.checks?.readGuard.status).toBe('ranged');
    }
    expect((await w.gate.decide(read('big.log', { offset: null, limit: null }))).code).toBe('read_guard:fs.read_file');
    // fs.cat has no range arguments: offset means nothing to it.
    const cat = await w.gate.decide({ agent: W, tool: 'fs.cat', args: { file: 'big.log', offset: 10 } });
    expect(cat.code).toBe('read_guard:fs.cat');
    expect(cat.message).toContain('read a part of it with a tool that takes a range');
  });

  it('resolves relative paths, .. and symlinks before the check, so none slips past it', async () => {
    const w = await world();
    const real = realpathSync(big);
    for (const path of ['./big.log', 'logs/../big.log', 'logs/current.log', 'alias/current.log', big, join(dir, 'alias', '..', 'big.log')]) {
      const d = await w.gate.decide(read(path));
      expect(d.code, path).toBe('read_guard:fs.read_file');
      expect(d.checks?.readGuard.file, path).toMatchObject({ path, resolved: real, size: 5 * MIB });
    }
  });

  it('lets a missing file or a directory through to the tool, which reports its own error', async () => {
    const w = await world();
    const missing = await w.gate.decide(read('nope/missing.log'));
    expect(missing.allowed).toBe(true);
    expect(missing.checks?.readGuard).toMatchObject({ status: 'not_a_file', file: { kind: 'missing', resolved: join(dir, 'nope', 'missing.log') } });
    symlinkSync(join(dir, 'gone.log'), join(dir, 'dangling.log'));
    expect((await w.gate.decide(read('dangling.log'))).checks?.readGuard.file?.kind).toBe('missing');
    const folder = await w.gate.decide(read('logs'));
    expect(folder.allowed).toBe(true);
    expect(folder.checks?.readGuard.file?.kind).toBe('other');
  });

  it('is off unless a ceiling is set for the agent, and ignores unlisted tools and calls without a path', async () => {
    const w = await world();
    const ops = await w.gate.decide({ agent: '0xOPS', tool: 'fs.read_file', args: { path: 'big.log' } });
    expect(ops.allowed).toBe(true);
    expect(ops.checks?.readGuard).toMatchObject({ status: 'off', applies: false });
    expect(ops.checks?.readGuard.file).toBeUndefined(); // not even looked at

    const none = await planningWorld('planRequired:\n  workspace: { mode: side_effects }\ntools:\n  read: [fs.read_file]\n', { readBase: dir });
    const off = await none.gate.decide(read('big.log'));
    expect(off.allowed).toBe(true);
    expect(off.checks?.readGuard.status).toBe('off');

    expect((await w.gate.decide({ agent: W, tool: 'fs.read_file' })).checks?.readGuard.status).toBe('no_path');
    expect((await w.gate.decide(read(42))).checks?.readGuard.status).toBe('no_path');
    expect((await w.gate.decide({ agent: W, tool: 'fs.tail', args: { path: 'big.log' } })).checks?.readGuard.status).toBe('not_listed');
  });

  it('fileFact resolves against the base and follows links', async () => {
    expect(await fileFact(dir, 'small.txt')).toEqual({ path: 'small.txt', resolved: realpathSync(join(dir, 'small.txt')), kind: 'file', size: 4 });
    expect(await fileFact(join(dir, 'logs'), '../small.txt')).toMatchObject({ kind: 'file', size: 4 });
    expect(await fileFact(dir, 'logs/current.log')).toMatchObject({ resolved: realpathSync(big), kind: 'file' });
  });

  it('refuses call arguments that are too large or not JSON, as invalid input', async () => {
    const w = await world();
    await expect(w.gate.decide(read('x', { content: 'y'.repeat(70_000) }))).rejects.toMatchObject({ code: ErrorCode.InvalidInput });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    await expect(w.gate.decide(read('x', { cyclic }))).rejects.toMatchObject({ code: ErrorCode.InvalidInput });
    await expect(w.gate.decide({ agent: W, tool: 'fs.read_file', args: JSON.parse('{"__proto__": 1}') })).rejects.toMatchObject({ code: ErrorCode.InvalidInput });
  });
});

describe('how the checks compose: read guard, then planning hold, then plan-required', () => {
  it('the first check that refuses decides; checks shows every verdict; one audit event per refusal', async () => {
    const w = await world();
    await w.gate.holds.place(W, { by: 'ops' });

    // fs.read_file is whitelisted: the hold lets it through, the read guard refuses it.
    const whitelisted = await w.gate.decide(read('big.log'));
    expect(whitelisted).toMatchObject({
      check: 'read_guard', code: 'read_guard:fs.read_file',
      checks: { readGuard: { refused: true }, planningHold: { held: true, refused: false, exempt: 'whitelist' } },
    });
    // fs.cat is not: both refuse, and the read guard comes first.
    const both = await w.gate.decide({ agent: W, tool: 'fs.cat', args: { file: 'big.log' } });
    expect(both).toMatchObject({ check: 'read_guard', code: 'read_guard:fs.cat', checks: { readGuard: { refused: true }, planningHold: { refused: true } } });
    // A small whole-file read with fs.cat: the read guard passes, the hold refuses.
    const small = await w.gate.decide({ agent: W, tool: 'fs.cat', args: { file: 'small.txt' } });
    expect(small).toMatchObject({ check: 'planning_hold', code: 'planning_hold:fs.cat' });
    // An unplanned effect: the hold and plan-required both refuse; the hold comes first.
    const effect = await w.gate.decide({ agent: W, tool: 'github.merge_pull_request' });
    expect(effect).toMatchObject({
      check: 'planning_hold', code: 'planning_hold:github.merge_pull_request',
      checks: { planRequired: { allowed: false, code: 'plan_required:github.merge_pull_request:none' } },
    });
    expect(effect.reason).toBeUndefined();
    expect(eventTypes(w)).toEqual(['HoldPlaced', 'ReadGuardBlocked', 'ReadGuardBlocked', 'PlanningHoldBlocked', 'PlanningHoldBlocked']);

    // Once the hold lifts, plan-required decides the effect.
    await w.gate.holds.unblock(W, { by: 'ops' });
    const after = await w.gate.decide({ agent: W, tool: 'github.merge_pull_request' });
    expect(after).toMatchObject({ check: 'plan_required', code: 'plan_required:github.merge_pull_request:none', reason: 'none' });

    // Whichever check refuses, guard() stops the call before the effect.
    let effects = 0;
    const run = () => { effects++; };
    await expect(w.gate.guard(read('big.log'), run)).rejects.toBeInstanceOf(CallRefusedError);
    await expect(w.gate.guard({ agent: W, tool: 'github.merge_pull_request' }, run)).rejects.toBeInstanceOf(PlanRequiredError);
    await w.gate.holds.place(W, { by: 'ops' });
    await expect(w.gate.guard({ agent: W, tool: 'fs.cat', args: { file: 'small.txt' } }, run)).rejects.toMatchObject({ code: ErrorCode.PlanningHold });
    expect(effects).toBe(0);
  });
});
