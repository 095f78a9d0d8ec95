/**
 * Pinned tools: the digest of an upstream tool's definition as the operator
 * reviewed it, kept beside the rules (`pins-<upstream>.yaml`, a rule file
 * under `mcp.pins`, validated and hot-reloaded with the others). The gate
 * compares it with the definition the upstream lists now
 * (`plangate.pins` in Rego); this module computes digests and writes the files.
 *
 * The digest is SHA-256 over a canonical JSON (object keys sorted at every
 * level, no whitespace) of what decides how a tool is used and classified:
 * its name, description, input and output schemas, and annotations. Its
 * title, icons and `_meta` are display and transport details and are left out.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** Digests computed, by the tool object an upstream listed (a list is read once and kept). */
const digests = new WeakMap<Tool, string>();

/** JSON with object keys sorted at every level: one text for one value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The definition digest of a tool: `sha256:` and 64 hex digits.
 *
 * @example
 * toolDigest({ name: 'write_file', inputSchema: { type: 'object' } }) // 'sha256:…'
 */
export function toolDigest(tool: Tool): string {
  const known = digests.get(tool);
  if (known !== undefined) return known;
  const definition = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  };
  const digest = `sha256:${createHash('sha256').update(canonicalJson(definition), 'utf8').digest('hex')}`;
  digests.set(tool, digest);
  return digest;
}

/** The file of an upstream's pins in the rules directory. */
export function pinsFileName(upstream: string): string {
  return `pins-${upstream}.yaml`;
}

/**
 * The text of an upstream's pins file: every tool's digest, by its name on
 * the upstream (names JSON-quoted: whatever the server calls a tool, it
 * stays one YAML key).
 *
 * @example
 * pinsFileText('fs', tools, 'plangate pin') // 'mcp:\n  pins:\n    fs:\n      "read_file": "sha256:…"\n…'
 */
export function pinsFileText(upstream: string, tools: readonly Tool[], source: string): string {
  const quoted = (s: string): string => JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const byName = new Map(tools.map((t) => [t.name, toolDigest(t)]));
  const names = [...byName.keys()].sort();
  return [
    '# yaml-language-server: $schema=https://plangate.dev/schemas/rules.schema.json',
    '#',
    `# The definitions of the tools of the upstream ${upstream} as the operator reviewed them (${source.replace(/[\s\p{Cc}]+/gu, ' ')}).`,
    '# A pinned tool whose name, description, schemas or annotations change is refused with',
    '# tool_changed:<tool> until it is reviewed and pinned again (plangate pin). Do not edit by hand.',
    '',
    'mcp:',
    '  pins:',
    names.length ? `    ${upstream}:` : `    ${upstream}: {}`,
    ...names.map((n) => `      ${quoted(n)}: "${byName.get(n) as string}"`),
    '',
  ].join('\n');
}
