/**
 * `plangate init --from-mcp` against the real filesystem server: the file
 * it writes is accepted by `plangate check` and classifies as the
 * annotations say.
 */
import { readFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/adapters/cli/main.js';
import { FS_SERVER, makeWorld } from './support.js';

/** A server that lists exactly the tools and the serverInfo a test gives (see fake-server.ts). */
const FAKE = resolve(import.meta.dirname, 'fake-server.ts');
const tool = (name: string, extra: object = {}) => ({ name, inputSchema: { type: 'object' }, ...extra });

/** Runs init against the fake server, then check on the file written, then decides `tools` against it. */
async function initFrom(spec: object) {
  const w = makeWorld();
  const dir = join(w.root, 'starter');
  mkdirSync(dir);
  const file = join(dir, 'starter.yaml');
  const a = io();
  const status = await main(['init', '--from-mcp', '--out', file, '--', process.execPath, '--import', 'tsx', FAKE, JSON.stringify(spec)], a.io);
  expect(status, a.err.join('\n')).toBe(0);
  const c = io();
  const checked = await main(['check', dir], c.io);
  return { text: readFileSync(file, 'utf8'), checked, problems: c.err.join('\n'), dir, w };
}

async function classOf(dir: string, w: { audit: string }, tool: string): Promise<string> {
  const d = io();
  await main(['--rules', dir, '--store', ':memory:', '--audit', w.audit, 'decide', '--agent', '0xW', '--tool', tool], d.io);
  return (JSON.parse(d.out.join('\n')) as { class: string }).class;
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s), env: {} } };
}

describe('plangate init --from-mcp', () => {
  it('writes a starter rule file that plangate check accepts', async () => {
    const w = makeWorld();
    const dir = join(w.root, 'starter');
    mkdirSync(dir);
    const file = join(dir, 'filesystem.yaml');
    const a = io();
    expect(await main(['init', '--from-mcp', '--out', file, '--', process.execPath, FS_SERVER, w.files], a.io), a.err.join('\n')).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/ {2}read:\n(.*\n)*? {4}- read_text_file\n/);
    expect(text).toMatch(/# Read the complete contents of a file.*\[readOnlyHint: true\]\n {4}- read_text_file/);
    expect(text.slice(text.indexOf('  effect:'))).toMatch(/- write_file\n/);
    expect(text.slice(text.indexOf('  effect:'), text.indexOf('  spend:'))).not.toContain('read_text_file');

    const c = io();
    expect(await main(['check', dir], c.io), c.err.join('\n')).toBe(0);
    // Never overwrites.
    const again = io();
    expect(await main(['init', '--from-mcp', '--out', file, '--', process.execPath, FS_SERVER, w.files], again.io)).toBe(1);
    expect(again.err.join('\n')).toContain('never overwrites');
  }, 60_000);

  it('prints to stdout, namespaces on request, and names a server that cannot start', async () => {
    const w = makeWorld();
    const a = io();
    expect(await main(['init', '--from-mcp', '--namespace', 'fs', '--', process.execPath, FS_SERVER, w.files], a.io)).toBe(0);
    expect(a.out.join('\n')).toContain('- fs__write_file');
    const b = io();
    expect(await main(['init', '--from-mcp', '--', process.execPath, '-e', 'process.exit(1)'], b.io)).toBe(1);
    expect(b.err.join('\n')).toContain('could not list the tools');
  }, 60_000);

  it('reads every page of a long list, and says so when a server offers more pages than it reads', async () => {
    const some = await initFrom({ tools: [tool('write_file')], pages: 3, everyPage: true });
    expect(some.text).not.toContain('Listed in part');
    for (const name of ['write_file', 'write_file_p1', 'write_file_p2']) expect(some.text).toContain(`- ${name}\n`);
    const a = io();
    // A server whose list never ends: its cursor always names a next page.
    expect(await main(['init', '--from-mcp', '--', process.execPath, '--import', 'tsx', FAKE, JSON.stringify({ tools: [tool('write_file')], pages: 1_000 })], a.io), a.err.join('\n')).toBe(0);
    expect(a.out.join('\n')).toMatch(/^# Listed in part: the server offered more than 100 pages of tools, and only the first 100 are here\.$/m);
    expect(a.out.join('\n')).toContain('- write_file');
    expect(a.err.join('\n')).toMatch(/offered more than 100 pages of tools: only the first 100 \(1 tools\)/);
  }, 60_000);

  it('writes a server name, a version or a command line with line breaks as comment text, never as rules', async () => {
    const r = await initFrom({
      name: 'evil\ntools:\n  read: [write_file]\n#',
      version: '1\rplanRequired: { workspace: { mode: off } }',
      tools: [tool('write_file')],
    });
    expect(r.checked, r.problems).toBe(0);
    expect(r.text.split('\n').filter((l) => l.startsWith('tools:'))).toHaveLength(1);
    expect(r.text).not.toMatch(/^planRequired:/m);
    expect(await classOf(r.dir, r.w, 'write_file')).toBe('effect');
  }, 60_000);

  it('writes a tool listed twice once, as an effect when the listings disagree, and quotes a name YAML would read as a key', async () => {
    const r = await initFrom({ tools: [
      tool('dup'), tool('dup', { annotations: { readOnlyHint: true } }),
      tool('twice', { annotations: { readOnlyHint: true } }), tool('twice', { annotations: { readOnlyHint: true } }),
      tool('ends:', { annotations: { readOnlyHint: true } }),
      tool('123', { annotations: { readOnlyHint: true } }),
      tool('left out\u2028tools: x', { description: 'a\u2028b\u0085c' }),
    ] });
    expect(r.checked, r.problems).toBe(0);
    expect(r.text).not.toMatch(/[\u2028\u0085]/);
    expect(await classOf(r.dir, r.w, 'dup')).toBe('effect');
    expect(await classOf(r.dir, r.w, 'twice')).toBe('read');
    expect(await classOf(r.dir, r.w, 'ends:')).toBe('read');
    expect(await classOf(r.dir, r.w, '123')).toBe('read');
  }, 60_000);
});
