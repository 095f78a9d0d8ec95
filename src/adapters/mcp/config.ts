/**
 * Which upstreams the gateway fronts: a command given after `--`, URLs given
 * with `--upstream [NAME=]URL`, and a config file naming several:
 *
 *   { "upstreams": {
 *       "fs":  { "command": "mcp-server-filesystem", "args": ["/srv/work"] },
 *       "web": { "url": "http://127.0.0.1:9000/mcp", "headers": { "authorization": "Bearer …" } } } }
 *
 * (`mcpServers` is read as a synonym of `upstreams`, the shape many hosts use.)
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { checkUpstreamName } from './names.js';
import type { UpstreamSpec } from './upstream.js';

function bad(where: string, message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, `${where}: ${message}`);
}

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw bad(where, 'must be an array of strings');
  return value as string[];
}

function stringMap(value: unknown, where: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw bad(where, 'must be an object of strings');
  }
  return value as Record<string, string>;
}

function httpUrl(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad(where, `"${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(where, `"${value}" is not an http(s) URL`);
  return url.href;
}

/**
 * Reads the upstreams of a config file, every problem named by its place.
 *
 * @example
 * parseUpstreamsFile('{"upstreams":{"fs":{"command":"mcp-server-filesystem","args":["/srv"]}}}', 'gw.json')
 */
export function parseUpstreamsFile(text: string, file: string): UpstreamSpec[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw bad(file, `not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const root = doc as Record<string, unknown> | null;
  const map = root && typeof root === 'object' ? root['upstreams'] ?? root['mcpServers'] : undefined;
  if (typeof map !== 'object' || map === null || Array.isArray(map)) throw bad(file, 'expected { "upstreams": { NAME: { "command": … } | { "url": … } } }');
  return Object.entries(map).map(([name, raw]): UpstreamSpec => {
    const where = `${file}: upstreams.${name}`;
    try {
      checkUpstreamName(name);
    } catch (error) {
      throw bad(where, (error as Error).message);
    }
    if (typeof raw !== 'object' || raw === null) throw bad(where, 'must be an object with "command" or "url"');
    const u = raw as Record<string, unknown>;
    const known = new Set(['command', 'args', 'cwd', 'env', 'url', 'headers', 'type']);
    const unknown = Object.keys(u).filter((k) => !known.has(k));
    if (unknown.length) throw bad(where, `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`);
    if (typeof u['command'] === 'string' && u['url'] === undefined) {
      return {
        name, kind: 'stdio', command: u['command'],
        args: u['args'] === undefined ? [] : strings(u['args'], `${where}.args`),
        ...(typeof u['cwd'] === 'string' ? { cwd: u['cwd'] } : {}),
        ...(u['env'] !== undefined ? { env: stringMap(u['env'], `${where}.env`) } : {}),
      };
    }
    if (typeof u['url'] === 'string' && u['command'] === undefined) {
      return { name, kind: 'http', url: httpUrl(u['url'], `${where}.url`), ...(u['headers'] !== undefined ? { headers: stringMap(u['headers'], `${where}.headers`) } : {}) };
    }
    throw bad(where, 'give exactly one of "command" (a stdio server) or "url" (Streamable HTTP)');
  });
}

/** Where the command line says the upstreams are. */
export interface UpstreamArgs {
  /** The command after `--`, and its arguments. */
  command?: string[];
  /** Its name (default `upstream`). */
  name?: string;
  /** `--upstream [NAME=]URL`, repeatable. */
  urls?: string[];
  /** `--upstreams FILE`. */
  file?: string;
  /** `--plangate-tools-only`: no upstream, plangate's own tools alone (for hosts that take their other tools from elsewhere). */
  none?: boolean;
}

/**
 * The upstreams from the command line and the config file, in that order.
 *
 * @example
 * await upstreamsFrom({ command: ['mcp-server-filesystem', '/srv'], name: 'fs' })
 */
export async function upstreamsFrom(a: UpstreamArgs): Promise<UpstreamSpec[]> {
  const out: UpstreamSpec[] = [];
  if (a.command?.length) {
    const [command, ...args] = a.command as [string, ...string[]];
    out.push({ name: checkUpstreamName(a.name ?? 'upstream'), kind: 'stdio', command, args });
  }
  (a.urls ?? []).forEach((raw, i) => {
    const m = /^([A-Za-z0-9][A-Za-z0-9-]{0,31})=(.+)$/.exec(raw);
    const name = m ? (m[1] as string) : i === 0 ? 'http' : `http-${i + 1}`;
    out.push({ name, kind: 'http', url: httpUrl(m ? (m[2] as string) : raw, `--upstream ${raw}`) });
  });
  if (a.file) out.push(...parseUpstreamsFile(await readFile(a.file, 'utf8'), a.file));
  const seen = new Set<string>();
  for (const u of out) {
    if (seen.has(u.name)) throw bad('upstreams', `the name "${u.name}" is used twice; name each upstream (--name, NAME=URL, or the config file's keys)`);
    seen.add(u.name);
  }
  if (a.none) {
    if (out.length > 0) throw bad('plangate mcp', '--plangate-tools-only serves plangate\'s own tools alone: give no upstream with it');
    return out;
  }
  if (out.length === 0) throw bad('plangate mcp', 'no upstream: give a command after --, --upstream URL, or --upstreams FILE (or --plangate-tools-only to serve plangate\'s own tools alone)');
  return out;
}

/**
 * `~` or `~/…` as the home directory (the upstream's `HOME` when its
 * environment sets one), as the filesystem server reads its arguments: no
 * shell expands them when the command comes from an upstreams file.
 */
function withHome(arg: string, home = homedir()): string {
  return arg === '~' || arg.startsWith('~/') ? join(home, arg.slice(1)) : arg;
}

/**
 * The read roots the upstreams imply: every argument of a stdio upstream's
 * command that names an existing directory, in order — the directories a
 * filesystem server is started with (`~` as the home directory), the first
 * of which it resolves relative paths against, as the read guard then does.
 *
 * @example
 * readRootsOf([{ name: 'fs', kind: 'stdio', command: 'mcp-server-filesystem', args: ['/srv/work'] }]) // ['/srv/work']
 */
export function readRootsOf(upstreams: readonly UpstreamSpec[]): string[] {
  const roots: string[] = [];
  for (const u of upstreams) {
    if (u.kind !== 'stdio') continue;
    for (const given of u.args) {
      if (given.startsWith('-')) continue;
      const arg = withHome(given, u.env?.['HOME']);
      const dir = isAbsolute(arg) ? arg : resolve(u.cwd ?? process.cwd(), arg);
      try {
        if (statSync(dir).isDirectory() && !roots.includes(dir)) roots.push(dir);
      } catch {
        // not a directory: an ordinary argument
      }
    }
  }
  return roots;
}
