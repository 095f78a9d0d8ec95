/**
 * The gateway's end-to-end flow, run over each client transport: the SDK's
 * Client → plangate mcp → the real MCP filesystem server on a temp dir.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { auditEvents, call, MIN, textOf, type Harness } from './support.js';

const RUN = { 'plangate/runId': 'run-42' };

export async function planRequiredFlow(h: Harness): Promise<void> {
  const w = h.world;
  const worker = await h.client('0xWORKER');
  const other = await h.client('0xOTHER');
  const a = join(w.files, 'a.txt');

  const names = (await worker.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(['plangate_say', 'plangate_submit_plan', 'write_file', 'read_text_file', 'read_multiple_files']));
  for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

  // No plan: refused, and the filesystem server never wrote the file.
  const none = await call(worker, 'write_file', { path: a, content: 'one' });
  expect(none.isError).toBe(true);
  expect(none.structuredContent).toEqual({ check: 'plan_required', code: 'plan_required:write_file:none', reason: 'none' });
  expect(textOf(none)).toContain('Post a message of kind `plan`');
  expect(existsSync(a)).toBe(false);

  // Reads are never gated.
  const list = await call(worker, 'list_directory', { path: w.files });
  expect(list.isError).toBeFalsy();

  // Another seat's plan, even in the org thread, does not count for the worker.
  expect((await call(other, 'plangate_say', { body: 'write a.txt for the worker', thread: 'org' })).isError).toBeFalsy();
  expect((await call(worker, 'write_file', { path: a, content: 'one' })).structuredContent).toMatchObject({ code: 'plan_required:write_file:none' });
  // A seat may not post where it does not speak.
  const elsewhere = await call(other, 'plangate_say', { body: 'x', thread: 'agent:0xWORKER' });
  expect(elsewhere.isError).toBe(true);
  expect(textOf(elsewhere)).toContain('is not one of them');

  // The worker plans; the same call now writes the file.
  const said = await call(worker, 'plangate_say', { body: 'write a.txt with the summary' });
  expect(said.isError).toBeFalsy();
  expect(said.structuredContent).toMatchObject({ thread: 'agent:0xWORKER', kind: 'plan' });
  const ok = await call(worker, 'write_file', { path: a, content: 'one' });
  expect(ok.isError, textOf(ok)).toBeFalsy();
  expect(readFileSync(a, 'utf8')).toBe('one');

  // After the window the plan is stale.
  h.travel(11 * MIN);
  const stale = await call(worker, 'write_file', { path: a, content: 'two' });
  expect(stale.structuredContent).toEqual({ check: 'plan_required', code: 'plan_required:write_file:stale', reason: 'stale' });
  expect(readFileSync(a, 'utf8')).toBe('one');

  // A plan tagged with the call's run counts however old, once a trusted party started that run.
  await h.operator.gate.runs.start({ id: 'run-42', seat: '0xWORKER', by: 'orchestrator' });
  expect((await call(worker, 'plangate_say', { body: 'rewrite a.txt in this run' }, RUN)).structuredContent).toMatchObject({ runId: 'run-42' });
  h.travel(60 * MIN);
  expect((await call(worker, 'write_file', { path: a, content: 'two' })).structuredContent).toMatchObject({ reason: 'stale' });
  const sameRun = await call(worker, 'write_file', { path: a, content: 'two' }, RUN);
  expect(sameRun.isError, textOf(sameRun)).toBeFalsy();
  expect(readFileSync(a, 'utf8')).toBe('two');

  // Each refused attempt is one PlanRequiredBlocked event.
  const blocked = auditEvents(w).filter((e) => e['type'] === 'PlanRequiredBlocked');
  expect(blocked.map((e) => e['code'])).toEqual([
    'plan_required:write_file:none', 'plan_required:write_file:none', 'plan_required:write_file:stale', 'plan_required:write_file:stale',
  ]);
  expect(blocked.every((e) => e['agent'] === '0xWORKER')).toBe(true);
}

export async function holdAndReadGuardFlow(h: Harness): Promise<void> {
  const w = h.world;
  const small = join(w.files, 'small.txt');
  const big = join(w.files, 'big.log');
  writeFileSync(small, 'hello\n');
  writeFileSync(big, 'line of a big log\n'.repeat(400));
  const worker = await h.client('0xWORKER');

  // The read guard: a whole-file read of the big file is refused, a part of it is not.
  const whole = await call(worker, 'read_text_file', { path: big });
  expect(whole.structuredContent).toEqual({ check: 'read_guard', code: 'read_guard:read_text_file', reason: 'whole_file_too_large' });
  expect(textOf(whole)).toContain('pass head or tail');
  // A relative path resolves against the server's first directory, for the guard as for the server.
  expect((await call(worker, 'read_text_file', { path: 'big.log' })).structuredContent).toMatchObject({ code: 'read_guard:read_text_file' });
  // Outside the server's directories the guard does not look; the whole-file read is refused.
  expect((await call(worker, 'read_text_file', { path: '/etc/hostname' })).structuredContent).toMatchObject({ check: 'read_guard' });
  const head = await call(worker, 'read_text_file', { path: big, head: 2 });
  expect(head.isError, textOf(head)).toBeFalsy();
  expect(textOf(head)).toBe('line of a big log\nline of a big log');
  expect((await call(worker, 'read_multiple_files', { paths: [small, big] })).structuredContent).toMatchObject({ code: 'read_guard:read_multiple_files' });
  const both = await call(worker, 'read_multiple_files', { paths: [small] });
  expect(both.isError, textOf(both)).toBeFalsy();
  expect(textOf(both)).toContain('hello');

  // A planning hold: whitelisted reads pass, everything else waits for the reviewer.
  await h.operator.gate.holds.place('0xWORKER', { by: 'ops-alice', task: 'Tidy the notes' });
  const heldWrite = await call(worker, 'write_file', { path: small, content: 'changed' });
  expect(heldWrite.structuredContent).toEqual({ check: 'planning_hold', code: 'planning_hold:write_file', reason: 'held' });
  expect(textOf(heldWrite)).toContain('plangate_submit_plan');
  expect((await call(worker, 'read_text_file', { path: small })).isError).toBeFalsy();
  expect((await call(worker, 'get_file_info', { path: small })).structuredContent).toMatchObject({ check: 'planning_hold' });

  const sent = await call(worker, 'plangate_submit_plan', { plan: 'Rewrite small.txt, nothing else' });
  expect(sent.isError, textOf(sent)).toBeFalsy();
  expect(sent.structuredContent).toMatchObject({ plans: 1 });
  await h.operator.gate.holds.pushBack('0xWORKER', { by: 'reviewer', body: 'Say what goes in it' });
  expect((await call(worker, 'write_file', { path: small, content: 'changed' })).structuredContent).toMatchObject({ check: 'planning_hold' });
  expect((await call(worker, 'plangate_submit_plan', { plan: 'Replace hello with a greeting list' })).structuredContent).toMatchObject({ plans: 2 });
  await h.operator.gate.holds.release('0xWORKER', { by: 'reviewer' });

  // Released: the work is decided as usual, plan-required included; the plan sent to the reviewer is on the record.
  const done = await call(worker, 'write_file', { path: small, content: 'changed' });
  expect(done.isError, textOf(done)).toBeFalsy();
  expect(readFileSync(small, 'utf8')).toBe('changed');
  h.travel(11 * MIN);
  expect((await call(worker, 'write_file', { path: small, content: 'again' })).structuredContent).toMatchObject({ check: 'plan_required', reason: 'stale' });

  // Not held any more: the reviewer channel says so as a tool error.
  const notHeld = await call(worker, 'plangate_submit_plan', { plan: 'again' });
  expect(notHeld.structuredContent).toMatchObject({ code: 'not_held' });
}
