/**
 * Where the read roots come from: the option, then PLANGATE_READ_BASE, then
 * the rules, then the working directory.
 */
import { delimiter, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRules, compileRules } from '../../src/rules/load.js';
import { readRootsFrom } from '../../src/main/roots.js';

const rules = compileRules([{ file: 'rules.yaml', text: 'readGuard:\n  roots: [srv/repo, /srv/docs]\n  tools:\n    fs.read_file: { path: path }\n' }]).data;

describe('read roots', () => {
  it('come from the rules, relative to the working directory', () => {
    expect(rules.readGuard?.roots).toEqual(['srv/repo', '/srv/docs']);
    expect(readRootsFrom({ env: {}, rules, cwd: '/work' })).toEqual(['/work/srv/repo', '/srv/docs']);
  });

  it('PLANGATE_READ_BASE beats the rules and may list several directories', () => {
    expect(readRootsFrom({ env: { PLANGATE_READ_BASE: ['/a', 'b'].join(delimiter) }, rules, cwd: '/work' })).toEqual(['/a', '/work/b']);
  });

  it('the option beats both; the working directory is the default', () => {
    expect(readRootsFrom({ option: ['/mcp/fs'], env: { PLANGATE_READ_BASE: '/a' }, rules })).toEqual(['/mcp/fs']);
    expect(readRootsFrom({ env: {} })).toEqual([resolve(process.cwd())]);
    expect(readRootsFrom({ env: { PLANGATE_READ_BASE: '' } })).toEqual([resolve(process.cwd())]);
  });

  it('a rules file defining the roots twice is a located error', () => {
    const r = checkRules([
      { file: 'a.yaml', text: 'readGuard:\n  roots: [x]\n' },
      { file: 'b.yaml', text: 'readGuard:\n  roots: [y]\n' },
    ]);
    expect(r.problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`)).toEqual(['b.yaml:2:3: readGuard.roots: the read roots are already defined at a.yaml:2:3']);
  });
});
