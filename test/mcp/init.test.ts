/**
 * `plangate init --from-mcp` against the real filesystem server: the file
 * it writes is accepted by `plangate check` and classifies as the
 * annotations say.
 */
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/adapters/cli/main.js';
import { FS_SERVER, makeWorld } from './support.js';

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
});
