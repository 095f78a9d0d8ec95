/**
 * `plangate init --from-mcp`: a starter rule file from an upstream's tool
 * list. Each tool goes under read or effect as its MCP annotations suggest
 * (the same advisory default the policy applies), with its description as
 * a comment, so a rule author reviews one line per tool and moves the ones
 * that spend money to `spend`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import { NAMESPACE_SEPARATOR } from './names.js';
import { MAX_LIST_PAGES, readToolList } from './tool-list.js';
import type { UpstreamSpec } from './upstream.js';

/** Tool names a rule file can hold (the rules schema's toolName). */
const RULE_TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:/@-]{0,255}$/;

export { MAX_LIST_PAGES };

/** Longest description kept in a comment. */
const DESCRIPTION_CHARS = 160;

/** The class the annotations suggest: destructive → effect, read-only → read, else effect. */
export function suggestedClass(tool: Tool): 'read' | 'effect' {
  const a = tool.annotations ?? {};
  if (a.destructiveHint === true) return 'effect';
  return a.readOnlyHint === true ? 'read' : 'effect';
}

/**
 * Text from the server on one comment line: every line break and control
 * character (a newline, a carriage return, U+2028, NEL) becomes a space, so
 * the server's words can never end the comment and start a rule.
 */
function oneLine(text: string): string {
  return text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
}

/** A tool name as a YAML list item: a name ending in `:` would be read as a key, so it is quoted. */
function yamlName(name: string): string {
  return name.endsWith(':') ? JSON.stringify(name) : name;
}

/** A name as a JSON string on one line: also the characters YAML 1.1 tools read as line breaks (NEL, U+2028, U+2029) are escaped. */
function quoted(name: string): string {
  return JSON.stringify(name).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function comment(tool: Tool): string {
  const text = oneLine(tool.description ?? tool.title ?? '');
  const short = text.length > DESCRIPTION_CHARS ? `${text.slice(0, DESCRIPTION_CHARS - 1)}…` : text;
  const a = tool.annotations ?? {};
  const hints = (['readOnlyHint', 'destructiveHint'] as const).filter((k) => typeof a[k] === 'boolean').map((k) => `${k}: ${a[k]}`);
  return `${short || '(no description)'}${hints.length ? ` [${hints.join(', ')}]` : ''}`;
}

/**
 * The text of a starter rule file for `tools` (names prefixed `NAME__` when `namespace` is given).
 *
 * @example
 * starterRules([{ name: 'write_file', inputSchema: { type: 'object' } }], { name: 'fs', version: '1' })
 */
export function starterRules(tools: readonly Tool[], server: Implementation | undefined, options: { namespace?: string; source?: string; partial?: boolean } = {}): string {
  const name = (t: Tool) => (options.namespace ? `${options.namespace}${NAMESPACE_SEPARATOR}${t.name}` : t.name);
  // A name listed twice is written once (a rule file may list a tool once): as a read only when every listing says read.
  const byName = new Map<string, { tool: Tool; cls: 'read' | 'effect' }>();
  for (const t of tools) {
    if (!RULE_TOOL_NAME.test(name(t))) continue;
    const seen = byName.get(name(t));
    const cls = suggestedClass(t);
    if (!seen) byName.set(name(t), { tool: t, cls });
    else if (cls === 'effect') seen.cls = 'effect';
  }
  const skipped = tools.filter((t) => !RULE_TOOL_NAME.test(name(t)));
  const section = (cls: 'read' | 'effect') => {
    const list = [...byName.values()].filter((e) => e.cls === cls).map((e) => e.tool).sort((a, b) => name(a).localeCompare(name(b)));
    if (list.length === 0) return [`  ${cls}: []`];
    return [`  ${cls}:`, ...list.flatMap((t) => [`    # ${comment(t)}`, `    - ${yamlName(name(t))}`])];
  };
  const who = server ? oneLine(`${server.name} ${server.version}`) : 'the upstream';
  return [
    '# yaml-language-server: $schema=https://plangate.dev/schemas/rules.schema.json',
    '#',
    `# How the tools of ${who} are classified${options.source ? ` (${oneLine(options.source)})` : ''}.`,
    '# Written by plangate init --from-mcp from the tools\' MCP annotations: read-only tools',
    '# under read, destructive or unannotated ones under effect. Review every entry: the',
    '# annotations are the server\'s own claim. Move a tool that spends or commits money to',
    '# spend. Reads are never gated; effects need a plan in side_effects mode; spends in',
    '# spends_only and side_effects.',
    ...skipped.map((t) => `# Left out (its name cannot be written in a rule): ${quoted(t.name)}`),
    ...(options.partial ? [`# Listed in part: the server offered more than ${MAX_LIST_PAGES} pages of tools, and only the first ${MAX_LIST_PAGES} are here.`] : []),
    '',
    '# planRequired:',
    '#   workspace: { mode: side_effects, windowMin: 30 }',
    '',
    'tools:',
    ...section('read'),
    ...section('effect'),
    '  spend: []',
    '',
  ].join('\n');
}

/**
 * Starts `command` as an MCP server over stdio and reads its tools, every
 * page up to {@link MAX_LIST_PAGES}; `partial` says the server had more.
 *
 * @example
 * const { tools, server, partial } = await listUpstreamTools(['mcp-server-filesystem', '/srv']);
 */
export async function listUpstreamTools(command: readonly string[]): Promise<{ tools: Tool[]; server: Implementation | undefined; partial: boolean }> {
  const [cmd, ...args] = command as [string, ...string[]];
  const client = new Client({ name: 'plangate-init', version: '0.1.0' });
  await client.connect(new StdioClientTransport({ command: cmd, args, stderr: 'ignore' }));
  try {
    return { ...(await readToolList(client)), server: client.getServerVersion() };
  } finally {
    await client.close();
  }
}

/**
 * Connects to one upstream as `plangate mcp` would (stdio or Streamable
 * HTTP) and reads its tools, every page up to {@link MAX_LIST_PAGES}.
 *
 * @example
 * const { tools } = await listToolsOf({ name: 'fs', kind: 'stdio', command: 'mcp-server-filesystem', args: ['/srv'] });
 */
export async function listToolsOf(spec: UpstreamSpec): Promise<{ tools: Tool[]; partial: boolean }> {
  const client = new Client({ name: 'plangate-pin', version: '0.1.0' });
  await client.connect(spec.kind === 'stdio'
    ? new StdioClientTransport({ command: spec.command, args: spec.args, ...(spec.cwd ? { cwd: spec.cwd } : {}), ...(spec.env ? { env: spec.env } : {}), stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(spec.url), spec.headers ? { requestInit: { headers: spec.headers } } : {}));
  try {
    return await readToolList(client);
  } finally {
    await client.close();
  }
}
