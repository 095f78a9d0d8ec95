/**
 * Every relative link in README.md, CONTRIBUTING.md and docs/ leads somewhere: to a file of the
 * repository and, with a #fragment, to a heading of that page (GitHub's heading anchors).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, ROOT } from './snippets.js';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-');
}

function headingsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fence = false;
  for (const line of readFileSync(join(ROOT, file), 'utf8').split('\n')) {
    if (line.trimStart().startsWith('```')) fence = !fence;
    else if (!fence && /^#{1,6} /.test(line)) anchors.add(anchorOf(line.replace(/^#+ /, '')));
  }
  return anchors;
}

function linksOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((l) => !/^[a-z]+:/.test(l));
}

describe('the documentation links', () => {
  it('makes the anchors GitHub makes', () => {
    expect(anchorOf('`plangate test`: suites next to the rules')).toBe('plangate-test-suites-next-to-the-rules');
    expect(anchorOf("plangate's own tools and the upstream's annotations")).toBe('plangates-own-tools-and-the-upstreams-annotations');
  });

  it('every relative link leads to a file, and every fragment to a heading', () => {
    const broken: string[] = [];
    for (const file of docFiles()) {
      for (const link of linksOf(file)) {
        const [path = '', fragment] = link.split('#');
        const target = path === '' ? file : normalize(join(dirname(file), path));
        if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${link} (no ${target})`);
        else if (fragment !== undefined && target.endsWith('.md') && !headingsOf(target).has(fragment)) broken.push(`${file}: ${link} (no heading #${fragment} in ${target})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
