/**
 * The read guard against real files: a sparse 5 MiB file, a small one, a
 * symlink, a directory and a missing path, in a temp directory that the gate
 * uses as its base for relative paths. And how the three checks compose.
 */
import { mkdirSync, mkdtempSync, realpathSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CallRefusedError, ErrorCode, PlanRequiredError } from '../../src/core/errors.js';
import { fileFact } from '../../src/gate/files.js';
import { MAX_SKIP_BYTES } from '../../src/gate/lines.js';
import { eventTypes, planningWorld, type PlanningWorld, decideExplained } from './support.js';

const MIB = 1024 * 1024;

const RULES = `
planRequired:
  workspace: { mode: side_effects }
tools:
  read: [fs.read_file, fs.cat, fs.head, fs.read_at, Read]
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
    fs.head: { path: path, lines: { head: n, tail: last } }
    fs.read_at: { path: path, range: [limit], skip: [offset] }
    Read: { path: file_path, lines: { head: limit }, skip: [offset] }
`;

let dir: string;
let big: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plangate-read-'));
  big = join(dir, 'big.log');
  writeFileSync(big, '');
  truncateSync(big, 5 * MIB); // sparse: 5 MiB on paper, nothing on disk
  writeFileSync(join(dir, 'small.txt'), 'tiny');
  writeFileSync(join(dir, 'lines.log'), 'a line of forty bytes, newline included\n'.repeat(40_000)); // 1.6 MB
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
    const d = await decideExplained(w.gate, read('big.log'));
    expect(d).toMatchObject({ allowed: false, check: 'read_guard', code: 'read_guard:fs.read_file' });
    expect(d.message).toBe(
      'read_guard:fs.read_file - this call reads all of big.log (5242880 bytes, 4194304 over), more than the 1048576-byte ceiling for whole-file reads ' +
        'set by the planning-gate defaults (rules.yaml:8:3). Sample it instead (pass offset or limit to read a part of it), or search it ' +
        'for what you need, then carry on.',
    );
    expect(d.checks?.readGuard).toEqual({
      status: 'over', applies: true, refused: true, maxBytes: MIB, path: 'big.log',
      files: [{ path: 'big.log', kind: 'file', size: 5 * MIB }],
    });
    expect(JSON.stringify(d)).not.toContain(dir); // where it resolved goes to the audit only
    expect(d.needs).toBeUndefined();
    expect(w.audit.events).toEqual([{
      type: 'ReadGuardBlocked', time: new Date(w.now()).toISOString(), agent: W, crew: 'trading', tool: 'fs.read_file',
      code: 'read_guard:fs.read_file', runId: null, reason: 'over', path: 'big.log', resolved: realpathSync(big), sizeBytes: 5 * MIB, maxBytes: MIB,
    }]);
    const err = await w.gate.guard(read('big.log'), () => 'read').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallRefusedError);
    expect(err).toMatchObject({ code: ErrorCode.ReadGuard, refusal: 'read_guard:fs.read_file', tool: 'fs.read_file' });
  });

  it('lets through a file at or under the ceiling', async () => {
    const w = await world();
    for (const path of ['small.txt', 'edge.bin']) {
      const d = await decideExplained(w.gate, read(path));
      expect(d.allowed, path).toBe(true);
      expect(d.checks?.readGuard.status, path).toBe('under');
    }
    expect(w.audit.events).toEqual([]);
  });

  it('lets through a read that asks for a part, whatever the size; a range that asks for no part is a whole-file read', async () => {
    const w = await world();
    for (const more of [{ offset: 1 }, { limit: 200 }, { offset: 4096, limit: 200 }]) {
      const d = await decideExplained(w.gate, read('big.log', more));
      expect(d.allowed).toBe(true);
      expect(d.checks?.readGuard.status).toBe('ranged');
    }
    expect((await decideExplained(w.gate, read('big.log', { offset: null, limit: null }))).code).toBe('read_guard:fs.read_file');
    // Zero, false, "", arrays, objects and counts above the ceiling take in the whole file (many servers read it all then).
    for (const limit of [0, false, '', [], {}, 100_000_000]) {
      expect((await decideExplained(w.gate, read('big.log', { limit }))).code, JSON.stringify(limit)).toBe('read_guard:fs.read_file');
    }
    // fs.cat has no range arguments: offset means nothing to it.
    const cat = await decideExplained(w.gate, { agent: W, tool: 'fs.cat', args: { file: 'big.log', offset: 10 } });
    expect(cat.code).toBe('read_guard:fs.cat');
    expect(cat.message).toContain('read a part of it with a tool that takes a range');
  });

  it('checks an offset alone as a read of the rest of the file; a limit makes it a part', async () => {
    const w = await world();
    const at = (more: Record<string, unknown>) => ({ agent: W, tool: 'fs.read_at', args: { path: 'big.log', ...more } });
    const rest = await decideExplained(w.gate, at({ offset: 1 }));
    expect(rest).toMatchObject({ allowed: false, check: 'read_guard', code: 'read_guard:fs.read_at' });
    // An offset may count from 1, so offset 1 may skip nothing.
    expect(rest.message).toContain('this call reads the rest of big.log from offset 1 on (up to 5242880 bytes, 4194304 over)');
    expect(rest.message).toContain('pass limit to read a part of it');
    expect((await decideExplained(w.gate, at({ offset: 4 * MIB + 1 }))).checks?.readGuard.status).toBe('under');
    expect((await decideExplained(w.gate, at({ offset: 1, limit: 4096 }))).checks?.readGuard.status).toBe('ranged');
  });

  it('measures a line count in a file over the ceiling: a few lines pass, lines over the ceiling are refused', async () => {
    const w = await world();
    const head = (path: string, more: Record<string, unknown>) => ({ agent: W, tool: 'fs.head', args: { path, ...more } });
    const few = await decideExplained(w.gate, head('lines.log', { n: 1000 }));
    expect(few).toMatchObject({ allowed: true });
    expect(few.checks?.readGuard).toMatchObject({ status: 'ranged', files: [{ path: 'lines.log', kind: 'file', spans: [{ from: 'head', count: 1000, bytes: 39_999 }] }] });
    // The last line is the empty one after the final newline: 26,215 lines are 26,214 of 40 bytes.
    expect((await decideExplained(w.gate, head('lines.log', { last: 26_215 }))).allowed).toBe(true);
    const many = await decideExplained(w.gate, head('lines.log', { last: 26_216 }));
    expect(many).toMatchObject({ allowed: false, check: 'read_guard', code: 'read_guard:fs.head' });
    expect(many.checks?.readGuard).toMatchObject({ status: 'lines_over', lines: [{ path: 'lines.log', from: 'tail', count: 26_216 }] });
    expect(many.message).toContain('the last 26216 lines of lines.log take more than the 1048576-byte ceiling');
    expect(w.audit.events).toMatchObject([{
      type: 'ReadGuardBlocked', reason: 'lines_over', path: 'lines.log', sizeBytes: 1_600_000,
      lines: [{ path: 'lines.log', from: 'tail', count: 26_216, bytes: MIB + 1 }],
    }]);
    // big.log is 5 MiB of zero bytes: no newline at all, so one line is the whole file.
    expect(await decideExplained(w.gate, head('big.log', { n: 1 }))).toMatchObject({ allowed: false, check: 'read_guard' });
    // A file at or under the ceiling is not measured.
    expect((await decideExplained(w.gate, head('small.txt', { n: 1 }))).checks?.readGuard.files).toEqual([{ path: 'small.txt', kind: 'file', size: 4 }]);
  });

  it('measures the lines a count asks for from the line an offset names; refuses what it cannot measure', async () => {
    const w = await world();
    const readAt = (path: string, more: Record<string, unknown>) => ({ agent: W, tool: 'Read', args: { file_path: path, ...more } });
    // Lines from 39,001 on: 1,000 of them are 40,000 bytes, 26,215 are over the ceiling.
    const few = await decideExplained(w.gate, readAt('lines.log', { offset: 39_001, limit: 999 }));
    expect(few.checks?.readGuard).toMatchObject({ status: 'ranged', files: [{ spans: [{ from: 'head', count: 999, skip: 39_000, bytes: 39_959 }] }] });
    // Past the last line, a tool may wrap the offset around: the lines are measured from the start.
    expect((await decideExplained(w.gate, readAt('lines.log', { offset: 50_000, limit: 1000 }))).checks?.readGuard)
      .toMatchObject({ status: 'ranged', files: [{ spans: [{ count: 1000, skip: 49_999, bytes: 39_999 }] }] });
    const many = await decideExplained(w.gate, readAt('lines.log', { offset: 2, limit: 26_215 }));
    expect(many).toMatchObject({ allowed: false, check: 'read_guard' });
    expect(many.message).toContain('the first 26215 lines of lines.log from line 2 on take more than');
    // deep.log has no newline in its first 64 MiB: the line before offset 2 never ends there, so nothing can be vouched for.
    const deep = join(dir, 'deep.log');
    writeFileSync(deep, '');
    truncateSync(deep, MAX_SKIP_BYTES + MIB);
    const unmeasured = await decideExplained(w.gate, readAt('deep.log', { offset: 2, limit: 10 }));
    expect(unmeasured).toMatchObject({ allowed: false, check: 'read_guard' });
    expect(unmeasured.checks?.readGuard).toMatchObject({ status: 'lines_unmeasured', lines: [{ path: 'deep.log', from: 'head', count: 10, skip: 1 }] });
    expect(unmeasured.message).toContain('plangate could not measure the first 10 lines of deep.log from line 2 on');
    expect(w.audit.events.at(-1)).toMatchObject({ reason: 'lines_unmeasured', path: 'deep.log', lines: [{ path: 'deep.log', count: 10, skip: 1, bytes: null }] });
  });

  it('refuses every count an agent can write that would read the whole file, however large or odd', async () => {
    const w = await world();
    for (const n of [1_048_577, 2 ** 53 + 2, 2 ** 70, 1e21, 1e300, Number.MAX_VALUE, 0, -1, 0.5, '10', [10], { n: 10 }, true]) {
      const d = await decideExplained(w.gate, { agent: W, tool: 'fs.head', args: { path: 'lines.log', n } });
      expect(d, JSON.stringify(n)).toMatchObject({ allowed: false, check: 'read_guard' });
    }
  });

  it('resolves relative paths, .. and symlinks before the check, so none slips past it', async () => {
    const w = await world();
    const real = realpathSync(big);
    for (const path of ['./big.log', 'logs/../big.log', 'logs/current.log', 'alias/current.log', big, join(dir, 'alias', '..', 'big.log')]) {
      const d = await decideExplained(w.gate, read(path));
      expect(d.code, path).toBe('read_guard:fs.read_file');
      expect(d.checks?.readGuard.files, path).toEqual([{ path, kind: 'file', size: 5 * MIB }]);
    }
    expect(w.audit.events.map((e) => (e as { resolved?: string }).resolved)).toEqual(Array(6).fill(real));
  });

  it('lets a missing file or a directory through to the tool, which reports its own error', async () => {
    const w = await world();
    const missing = await decideExplained(w.gate, read('nope/missing.log'));
    expect(missing.allowed).toBe(true);
    expect(missing.checks?.readGuard).toMatchObject({ status: 'not_a_file', files: [{ path: 'nope/missing.log', kind: 'missing' }] });
    const folder = await decideExplained(w.gate, read('logs'));
    expect(folder.allowed).toBe(true);
    expect(folder.checks?.readGuard.files?.[0]?.kind).toBe('other');
  });

  it('is off unless a ceiling is set for the agent, and ignores unlisted tools', async () => {
    const w = await world();
    const ops = await decideExplained(w.gate, { agent: '0xOPS', tool: 'fs.read_file', args: { path: 'big.log' } });
    expect(ops.allowed).toBe(true);
    expect(ops.checks?.readGuard).toMatchObject({ status: 'off', applies: false });
    expect(ops.checks?.readGuard.files).toBeUndefined(); // not even looked at

    const none = await planningWorld('planRequired:\n  workspace: { mode: side_effects }\ntools:\n  read: [fs.read_file]\n', { readBase: dir });
    const off = await decideExplained(none.gate, read('big.log'));
    expect(off.allowed).toBe(true);
    expect(off.checks?.readGuard.status).toBe('off');

    expect((await decideExplained(w.gate, { agent: W, tool: 'fs.tail', args: { path: 'big.log' } })).checks?.readGuard.status).toBe('not_listed');
  });

  it('fileFact resolves against the first root and follows links, inside the roots only', async () => {
    expect(await fileFact([dir], 'small.txt')).toEqual({ fact: { path: 'small.txt', kind: 'file', size: 4 }, resolved: realpathSync(join(dir, 'small.txt')) });
    expect(await fileFact([join(dir, 'logs'), dir], '../small.txt')).toMatchObject({ fact: { kind: 'file', size: 4 } });
    expect(await fileFact([dir], 'logs/current.log')).toMatchObject({ fact: { kind: 'file' }, resolved: realpathSync(big) });
    expect(await fileFact([join(dir, 'logs')], '../small.txt')).toEqual({ fact: { path: '../small.txt', kind: 'outside' }, resolved: join(dir, 'small.txt') });
    // current.log links to big.log, outside logs/: the link is followed and found to lead out.
    expect(await fileFact([join(dir, 'logs')], 'current.log')).toEqual({ fact: { path: 'current.log', kind: 'outside' }, resolved: realpathSync(big) });
    expect(await fileFact([], 'small.txt')).toEqual({ fact: { path: 'small.txt', kind: 'outside' } });
  });

  it('fileFact judges a relative path with several roots by the worst of what each root holds under that name', async () => {
    // Roots read off `node /opt/server /srv/work`: the first is the server's code, where the name is missing.
    const code = mkdtempSync(join(tmpdir(), 'plangate-code-'));
    expect(await fileFact([code, dir], 'big.log')).toMatchObject({ fact: { path: 'big.log', kind: 'file', size: statSync(big).size }, resolved: realpathSync(big) });
    // The same name in two roots: the larger file is the one measured.
    writeFileSync(join(code, 'big.log'), 'x'.repeat(10));
    expect((await fileFact([code, dir], 'big.log')).fact).toMatchObject({ kind: 'file', size: statSync(big).size });
    expect((await fileFact([dir, code], 'big.log')).fact).toMatchObject({ kind: 'file', size: statSync(big).size });
    // A name that is missing everywhere is missing; an absolute path or a given base is resolved once.
    expect((await fileFact([code, dir], 'nowhere.log')).fact.kind).toBe('missing');
    expect((await fileFact([code, dir], join(code, 'big.log'))).fact).toMatchObject({ kind: 'file', size: 10 });
    expect((await fileFact([code, dir], 'big.log', code)).fact).toMatchObject({ kind: 'file', size: 10 });
  });

  it('fileFact reports a file of /proc, which says 0 bytes whatever it holds, as having no size; an empty file as empty', async () => {
    expect((await fileFact(['/proc/self'], 'status')).fact).toEqual({ path: 'status', kind: 'special' });
    const empty = mkdtempSync(join(tmpdir(), 'plangate-empty-'));
    writeFileSync(join(empty, '__init__.py'), '');
    expect((await fileFact([empty], '__init__.py')).fact).toEqual({ path: '__init__.py', kind: 'file', size: 0 });
  });

  it('fileFact finds the file a name means up to Unicode normalization, as the filesystem server does', async () => {
    const u = mkdtempSync(join(tmpdir(), 'plangate-nfc-'));
    writeFileSync(join(u, 'caf\u00e9.log'), 'x'.repeat(10)); // composed on disk
    writeFileSync(join(u, 'KEYS.log'), 'x'.repeat(20));
    mkdirSync(join(u, 're\u0301sume\u0301')); // a decomposed directory name
    writeFileSync(join(u, 're\u0301sume\u0301', 'cv.txt'), 'x'.repeat(30));
    expect(await fileFact([u], 'cafe\u0301.log')).toMatchObject({ fact: { path: 'cafe\u0301.log', kind: 'file', size: 10 }, resolved: join(realpathSync(u), 'caf\u00e9.log') });
    expect(await fileFact([u], '\u212AEYS.log')).toMatchObject({ fact: { kind: 'file', size: 20 } });
    expect(await fileFact([u], 'r\u00e9sum\u00e9/cv.txt')).toMatchObject({ fact: { kind: 'file', size: 30 } });
    // Two entries equal in NFC: the server refuses the call as ambiguous, so the tool reports its own error.
    writeFileSync(join(u, 'r\u00e9sum\u00e9.txt'), 'a'.repeat(50));
    writeFileSync(join(u, 're\u0301sume\u0301.txt'), 'b'.repeat(60));
    expect((await fileFact([u], 'r\u00e9sume\u0301.txt')).fact.kind).toBe('missing');
    // An equivalent name through a link out of the roots is outside.
    const out = mkdtempSync(join(tmpdir(), 'plangate-nfc-out-'));
    writeFileSync(join(out, 'secret.log'), 'x'.repeat(40));
    symlinkSync(join(out, 'secret.log'), join(u, 'l\u00e9ak.log'));
    expect((await fileFact([u], 'le\u0301ak.log')).fact.kind).toBe('outside');
    expect((await fileFact([u], 'nothing-like-it.log')).fact.kind).toBe('missing');
  });

  it('refuses a path that is not one plain path, saying why, and audits it', async () => {
    const w = await world();
    const cases: Array<[unknown, string]> = [
      [undefined, 'argument "path" is missing'],
      [42, 'argument "path" is a number, not a path'],
      [['big.log'], 'argument "path" is an array, not a path'],
      [{ p: 'big.log' }, 'argument "path" is an object, not a path'],
      ['big.log\u0000.txt', 'argument "path" contains a NUL byte'],
      [`file://${big}`, 'argument "path" is a URL, not a path'],
    ];
    for (const [path, problem] of cases) {
      const d = await decideExplained(w.gate, { agent: W, tool: 'fs.read_file', args: path === undefined ? {} : { path } });
      expect(d, String(path)).toMatchObject({ allowed: false, check: 'read_guard', checks: { readGuard: { status: 'bad_path', problem } } });
      expect(d.message).toContain(problem);
    }
    expect(w.audit.events.map((e) => (e as { reason?: string }).reason)).toEqual(Array(cases.length).fill('bad_path'));
  });

  it('refuses a whole-file read outside the read roots without looking at it or saying anything about it', async () => {
    const w = await world();
    symlinkSync('/etc/hostname', join(dir, 'out.link'));
    symlinkSync('/nonexistent/plangate-nothing', join(dir, 'out-dangling.link'));
    const seen: string[] = [];
    for (const path of ['/etc/passwd', '/etc/no-such-file', '../../../etc/passwd', 'logs/../../outside.txt', 'out.link', 'out-dangling.link', 'out.link/x']) {
      const d = await decideExplained(w.gate, read(path));
      expect(d, path).toMatchObject({ allowed: false, check: 'read_guard', checks: { readGuard: { status: 'outside_roots', files: [{ path, kind: 'outside' }] } } });
      seen.push(JSON.stringify(d).split(JSON.stringify(path).slice(1, -1)).join('<P>'));
    }
    // Every answer has the same shape whatever is there: no size, no resolved path, no existence.
    expect(new Set(seen).size).toBe(1);
    for (const t of seen) expect(t).not.toMatch(/hostname|nonexistent|bytes/);
    expect(w.audit.events.map((e) => (e as { reason?: string }).reason)).toEqual(Array(7).fill('outside_roots'));
    expect(w.audit.events[0]).toMatchObject({ path: '/etc/passwd', sizeBytes: null });
    // A range is not a whole-file read: not the guard's business.
    expect((await decideExplained(w.gate, read('/etc/passwd', { limit: 10 }))).allowed).toBe(true);
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
    const whitelisted = await decideExplained(w.gate, read('big.log'));
    expect(whitelisted).toMatchObject({
      check: 'read_guard', code: 'read_guard:fs.read_file',
      checks: { readGuard: { refused: true }, planningHold: { held: true, refused: false, exempt: 'whitelist' } },
    });
    // fs.cat is not: both refuse, and the read guard comes first.
    const both = await decideExplained(w.gate, { agent: W, tool: 'fs.cat', args: { file: 'big.log' } });
    expect(both).toMatchObject({ check: 'read_guard', code: 'read_guard:fs.cat', checks: { readGuard: { refused: true }, planningHold: { refused: true } } });
    // A small whole-file read with fs.cat: the read guard passes, the hold refuses.
    const small = await decideExplained(w.gate, { agent: W, tool: 'fs.cat', args: { file: 'small.txt' } });
    expect(small).toMatchObject({ check: 'planning_hold', code: 'planning_hold:fs.cat' });
    // An unplanned effect: the hold and plan-required both refuse; the hold comes first.
    const effect = await decideExplained(w.gate, { agent: W, tool: 'github.merge_pull_request' });
    expect(effect).toMatchObject({
      check: 'planning_hold', code: 'planning_hold:github.merge_pull_request',
      checks: { planRequired: { allowed: false, code: 'plan_required:github.merge_pull_request:none' } },
    });
    expect(effect.reason).toBeUndefined();
    expect(eventTypes(w)).toEqual(['HoldPlaced', 'ReadGuardBlocked', 'ReadGuardBlocked', 'PlanningHoldBlocked', 'PlanningHoldBlocked']);

    // Once the hold lifts, plan-required decides the effect.
    await w.gate.holds.unblock(W, { by: 'ops' });
    const after = await decideExplained(w.gate, { agent: W, tool: 'github.merge_pull_request' });
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
