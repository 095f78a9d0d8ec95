/** docs/reference/environment.md names every PLANGATE_ variable the sources read. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './snippets.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sources(p);
    return e.name.endsWith('.ts') ? [readFileSync(p, 'utf8')] : [];
  });
}

describe('the environment reference', () => {
  it('names every PLANGATE_ variable of src/', () => {
    const names = new Set(sources(join(ROOT, 'src')).flatMap((t) => [...t.matchAll(/\bPLANGATE_[A-Z0-9_]*[A-Z0-9]\b/g)].map((m) => m[0])));
    expect(names.has('PLANGATE_RULES')).toBe(true);
    const page = readFileSync(join(ROOT, 'docs', 'reference', 'environment.md'), 'utf8');
    expect([...names].filter((n) => !page.includes(`\`${n}`)).sort()).toEqual([]);
  });
});
