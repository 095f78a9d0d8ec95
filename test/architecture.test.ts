/**
 * Dependencies point one way: core ← rules / engine / facts / audit ← gate ←
 * main ← adapters. Checked from the import graph of src/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', 'src');
const LAYER: Record<string, number> = { core: 0, rules: 1, engine: 1, facts: 1, audit: 1, gate: 2, main: 3, adapters: 4 };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function area(file: string): string {
  return relative(SRC, file).split('/')[0] as string;
}

describe('the module layout', () => {
  const edges = files(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/from '(\.[^']+)'/g)].map((m) => ({ from: file, to: resolve(dirname(file), m[1] as string) }));
  });

  it('has imports to check', () => {
    expect(edges.length).toBeGreaterThan(50);
  });

  it('points dependencies from adapters towards core, never back', () => {
    const wrong = edges
      .filter(({ from, to }) => area(from) in LAYER && area(to) in LAYER)
      .filter(({ from, to }) => area(from) !== area(to) && (LAYER[area(to)] as number) >= (LAYER[area(from)] as number))
      .map(({ from, to }) => `${relative(SRC, from)} → ${relative(SRC, to)}`);
    expect(wrong).toEqual([]);
  });

  it('keeps every top-level folder in a known layer', () => {
    const areas = new Set(files(SRC).map(area).filter((a) => !a.endsWith('.ts')));
    expect([...areas].filter((a) => !(a in LAYER))).toEqual([]);
  });
});
