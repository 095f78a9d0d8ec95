/**
 * Every YAML and console block in README.md, CONTRIBUTING.md and docs/ is one a test checks:
 * each is named in SNIPPETS (test/docs/snippets.ts), each name points at exactly one block,
 * and each name is read by a test file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blocksOf, CHECKED_KINDS, docFiles, ROOT, SNIPPETS, snippetBlock, type SnippetKey } from './snippets.js';

const KEYS = Object.keys(SNIPPETS) as SnippetKey[];

function testSources(): string {
  const texts: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts')) texts.push(readFileSync(p, 'utf8'));
    }
  };
  walk(join(ROOT, 'test'));
  return texts.join('\n');
}

describe('the documentation snippets', () => {
  it('finds the pages', () => {
    expect(docFiles()).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/reference/cli.md']));
  });

  it('names every YAML and console block of README, CONTRIBUTING and docs/', () => {
    const unchecked = docFiles()
      .flatMap(blocksOf)
      .filter((b) => (CHECKED_KINDS as readonly string[]).includes(b.lang))
      .filter((b) => !KEYS.some((k) => SNIPPETS[k].file === b.file && SNIPPETS[k].heading === b.heading && SNIPPETS[k].lang === b.lang))
      .map((b) => `${b.file} under "${b.heading}": a ${b.lang} block no test checks`);
    expect(unchecked).toEqual([]);
  });

  it('each name points at exactly one block', () => {
    for (const key of KEYS) expect(() => snippetBlock(key), key).not.toThrow();
  });

  it('each name is read by a test', () => {
    const sources = testSources();
    const unread = KEYS.filter((k) => !sources.includes(`snippet('${k}')`) && !sources.includes(`snippetBlock('${k}')`));
    expect(unread).toEqual([]);
  });

  it('sees a block that is not named as unchecked', () => {
    const blocks = blocksOf('docs/concepts/trust-model.md');
    expect(blocks.filter((b) => b.lang === 'yaml')).toEqual([]);
    expect(blocksOf('CONTRIBUTING.md').some((b) => b.lang === 'sh')).toBe(true);
  });
});
