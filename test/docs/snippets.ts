/**
 * The YAML and console snippets of README.md and docs/, each named by its file and the heading
 * it sits under. A test reads a snippet through `snippet(key)`; test/docs/coverage.test.ts fails
 * on a YAML or console block no entry here names, so no page can hold an unchecked one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The kinds of fenced block the snippet tests run or validate. */
export const CHECKED_KINDS = ['yaml', 'console'] as const;

export interface SnippetPlace {
  file: string;
  heading: string;
  lang: (typeof CHECKED_KINDS)[number];
}

export const SNIPPETS = {
  quotas: { file: 'docs/guides/retention-and-quotas.md', heading: '## Quotas', lang: 'yaml' },
  runsBound: { file: 'docs/concepts/runs-and-delegations.md', heading: '# Runs and delegations', lang: 'yaml' },
  planningGate: { file: 'docs/concepts/holds-and-read-guard.md', heading: '## The settings', lang: 'yaml' },
  rules: { file: 'docs/guides/rules-and-blueprints.md', heading: '# Rules and blueprints', lang: 'yaml' },
  blueprint: { file: 'docs/guides/rules-and-blueprints.md', heading: '## Crew blueprints', lang: 'yaml' },
  shadow: { file: 'docs/guides/rules-and-blueprints.md', heading: '## Shadow mode', lang: 'yaml' },
  suite: { file: 'docs/guides/testing-rule-changes.md', heading: '## `plangate test`: suites next to the rules', lang: 'yaml' },
  ciRecipe: { file: 'docs/guides/testing-rule-changes.md', heading: '## A CI recipe', lang: 'yaml' },
  reviewer: { file: 'docs/guides/testing-rule-changes.md', heading: '## What a reviewer sees', lang: 'console' },
  hookRules: { file: 'docs/guides/agent-hooks.md', heading: '# Agent-host hooks', lang: 'yaml' },
  mcpTrust: { file: 'docs/guides/mcp-gateway-security.md', heading: '## Trusted annotations', lang: 'yaml' },
  environment: { file: 'docs/reference/environment.md', heading: '## Configuration from the environment', lang: 'console' },
  approvalsRule: { file: 'docs/concepts/approvals.md', heading: '## The rule', lang: 'yaml' },
  approvalsCli: { file: 'docs/concepts/approvals.md', heading: '## Approving', lang: 'console' },
  approvalsClient: { file: 'docs/concepts/approvals.md', heading: "## Approving at the agent's MCP client", lang: 'yaml' },
} as const satisfies Record<string, SnippetPlace>;

export type SnippetKey = keyof typeof SNIPPETS;

export interface Block {
  file: string;
  heading: string;
  lang: string;
  /** Offsets of the block's text (after the opening fence line, up to the closing fence) in the file. */
  start: number;
  end: number;
  text: string;
}

/** Every fenced block of a Markdown file, with the heading it sits under. */
export function blocksOf(file: string): Block[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const blocks: Block[] = [];
  let heading = '';
  let open: { lang: string; start: number } | null = null;
  let at = 0;
  for (const line of text.split('\n')) {
    const next = at + line.length + 1;
    if (open) {
      if (line.trimStart().startsWith('```')) {
        blocks.push({ file, heading, lang: open.lang, start: open.start, end: at, text: text.slice(open.start, at) });
        open = null;
      }
    } else if (line.trimStart().startsWith('```')) {
      open = { lang: line.trim().slice(3).trim(), start: next };
    } else if (/^#{1,6} /.test(line)) {
      heading = line;
    }
    at = next;
  }
  return blocks;
}

/** README.md, CONTRIBUTING.md and every Markdown file under docs/, as paths from the root. */
export function docFiles(): string[] {
  const files = ['README.md', 'CONTRIBUTING.md'];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) files.push(relative(ROOT, p));
    }
  };
  walk(join(ROOT, 'docs'));
  return files.sort();
}

/** The one block a key names (its place, its text and its offsets in the file). */
export function snippetBlock(key: SnippetKey): Block {
  const place: SnippetPlace = SNIPPETS[key];
  const found = blocksOf(place.file).filter((b) => b.heading === place.heading && b.lang === place.lang);
  if (found.length !== 1) throw new Error(`${key}: ${found.length} ${place.lang} blocks under "${place.heading}" in ${place.file}, expected 1`);
  return found[0] as Block;
}

export function snippet(key: SnippetKey): string {
  return snippetBlock(key).text;
}

/** The text of a file from a heading to the next heading (fences respected). */
export function section(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const lines = text.split('\n');
  const from = lines.indexOf(heading);
  if (from === -1) throw new Error(`no heading "${heading}" in ${file}`);
  let fence = false;
  let to = lines.length;
  for (let i = from + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trimStart().startsWith('```')) fence = !fence;
    else if (!fence && /^#{1,6} /.test(line)) { to = i; break; }
  }
  return lines.slice(from, to).join('\n');
}
