/**
 * docs/guides/agent-hosts.md shows, per host, the files `plangate init --hook` writes: each block
 * is compared with what init really writes for that host (the rules directory shown as
 * /srv/rules, the seat 0xDEV), so the page cannot drift from the command.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { HOST_NAMES } from '../../src/adapters/hook/contract.js';
import { cli, tempDir } from '../cli/run.js';
import { blocksOf, ROOT } from './snippets.js';

const PAGE = 'docs/guides/agent-hosts.md';

/** Each host section's blocks, with the file each one is said to be (the last backticked path before it). */
function shown(): Map<string, Array<{ file: string; lang: string; text: string }>> {
  const text = readFileSync(join(ROOT, PAGE), 'utf8');
  const byHost = new Map<string, Array<{ file: string; lang: string; text: string }>>();
  let from = 0;
  for (const block of blocksOf(PAGE)) {
    const host = /^## .*\(`([a-z-]+)`\)$/.exec(block.heading)?.[1];
    const before = text.slice(from, block.start);
    from = block.end;
    if (host === undefined) continue;
    const files = [...before.matchAll(/`([^`]*[./][^`]*)`/g)].map((m) => m[1]!);
    const file = files[files.length - 1];
    expect(file, `a ${block.lang} block under ${block.heading} says which file it is`).toBeDefined();
    byHost.set(host, [...(byHost.get(host) ?? []), { file: file!, lang: block.lang, text: block.text }]);
  }
  return byHost;
}

describe('the agent hosts guide', () => {
  const blocks = shown();

  it('has a section for every host', () => {
    expect([...blocks.keys()].sort()).toEqual([...HOST_NAMES].sort());
  });

  for (const host of HOST_NAMES) {
    it(`${host}: each file it shows is what plangate init --hook ${host} writes`, async () => {
      const root = tempDir('plangate-doc-hosts-');
      const project = join(root, 'p');
      const home = join(root, 'home');
      mkdirSync(project);
      mkdirSync(home);
      const rules = join(root, 'rules');
      // The guide shows an installed plangate: one is on the PATH.
      const bin = join(root, 'bin');
      mkdirSync(bin);
      writeFileSync(join(bin, 'plangate'), '#!/bin/sh\n', { mode: 0o755 });
      const r = await cli(['--rules', rules, 'init', '--hook', host, '--agent', '0xDEV', '--project', project, '--user'], { HOME: home, PATH: bin });
      expect(r.status, r.err).toBe(0);
      const asShown = (text: string) => text.replaceAll(rules, '/srv/rules');
      for (const b of blocks.get(host) ?? []) {
        let actual: string;
        if (b.file.startsWith('~/')) actual = readFileSync(join(home, b.file.slice(2)), 'utf8');
        // The entry is the indented lines after "the entry to add:".
        else if (b.file === 'cline_mcp_settings.json') actual = (/the entry to add:\n((?: {2}.*\n)+)/.exec(r.out)?.[1] ?? '').replace(/^ {2}/gm, '');
        else actual = readFileSync(join(project, b.file), 'utf8');
        actual = asShown(actual);
        if (b.lang === 'json') expect(JSON.parse(b.text), b.file).toEqual(JSON.parse(actual));
        else if (b.lang === 'toml') expect(parseToml(b.text), b.file).toEqual(parseToml(actual));
        else expect(b.text, b.file).toBe(actual);
      }
    });
  }
});
