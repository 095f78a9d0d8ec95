/**
 * The read roots the gateway takes from its upstreams' commands: the
 * directories a filesystem server is started with, read as that server
 * reads them (`~` as the home directory, relative to the command's cwd),
 * and none from an upstream over Streamable HTTP.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUpstreamsFile, readRootsOf } from '../../src/adapters/mcp/config.js';

describe('readRootsOf', () => {
  const home = mkdtempSync(join(tmpdir(), 'plangate-home-'));
  mkdirSync(join(home, 'work'));
  writeFileSync(join(home, 'notes.txt'), 'a file, not a directory');

  it('reads ~ and ~/… as the upstream\'s home directory, as the filesystem server does (no shell expands an upstreams file)', () => {
    const [fs] = parseUpstreamsFile(JSON.stringify({ upstreams: { fs: { command: 'mcp-server-filesystem', args: ['~/work', '~', '~/notes.txt', '~/missing'], env: { HOME: home } } } }), 'upstreams.json');
    expect(readRootsOf([fs!])).toEqual([join(home, 'work'), home]);
  });

  it('takes existing directories in order, relative ones against the command\'s cwd, and skips flags, files and URLs', () => {
    const roots = readRootsOf([
      { name: 'a', kind: 'stdio', command: 'server', args: ['--root', 'work', '-v', 'notes.txt', home], cwd: home },
      { name: 'web', kind: 'http', url: 'http://127.0.0.1:1/mcp' },
    ]);
    expect(roots).toEqual([join(home, 'work'), home]);
  });
});
