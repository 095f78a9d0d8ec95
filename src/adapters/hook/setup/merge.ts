/**
 * Merging plangate's entries into a host's settings: a hook entry (in a flat
 * list, or inside matcher groups) replaces plangate's earlier one for the
 * same host or is appended; plangate's MCP server entry never replaces
 * another server of the same name.
 */
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { HostName } from '../contract.js';
import { isJsonObject, type Json, type JsonObject } from './json-settings.js';

/** Whether a hook entry's command is plangate's hook for this host (an earlier run's). */
export function isOurs(host: HostName, value: Json | undefined): boolean {
  return typeof value === 'string' && /(^|[\s/'"])plangate(\.js)?['"]?\s/.test(`${value} `) && value.includes(` hook --format ${host}`);
}

/** Replaces plangate's entry in a flat list of hook entries, or appends it. */
export function upsertEntry(list: Json[], ours: JsonObject, commandKey: string, host: HostName): void {
  const at = list.findIndex((e) => isJsonObject(e) && isOurs(host, e[commandKey]));
  if (at === -1) list.push(ours);
  else list[at] = ours;
}

/** Replaces plangate's hook inside a list of matcher groups (`{ matcher, hooks: [...] }`), or appends a group. */
export function upsertInGroups(file: string, groups: Json[], group: JsonObject, host: HostName, path: string): void {
  const hook = (group['hooks'] as Json[])[0] as JsonObject;
  for (const [i, g] of groups.entries()) {
    if (!isJsonObject(g)) continue;
    const hooks = g['hooks'];
    if (!Array.isArray(hooks)) throw new PlangateError(ErrorCode.InvalidInput, `${file}: ${path}[${i}].hooks is not an array; nothing was changed`);
    const at = hooks.findIndex((h) => isJsonObject(h) && isOurs(host, h['command']));
    if (at !== -1) {
      hooks[at] = hook;
      return;
    }
  }
  groups.push(group);
}

/** Sets plangate's MCP server entry; refuses to replace a server of the same name that is not plangate's. */
export function upsertServer(file: string, servers: JsonObject, name: string, entry: JsonObject, path: string): void {
  const existing = servers[name];
  if (existing !== undefined && !looksLikePlangate(existing)) {
    throw new PlangateError(ErrorCode.InvalidInput, `${file}: ${path}.${name} is another server; plangate will not replace it (pick another name with --plangate-server); nothing was changed`);
  }
  servers[name] = entry;
}

function looksLikePlangate(value: Json): boolean {
  if (!isJsonObject(value)) return false;
  const command = value['command'];
  const args = value['args'];
  if (typeof command !== 'string' || !Array.isArray(args) || !args.includes('mcp')) return false;
  // `plangate …`, or this installation's Node and entry point when plangate is not on the PATH (init-hook.ts).
  return /(^|\/)plangate(\.js)?$/.test(command) || (typeof args[0] === 'string' && /(^|\/)bin\/plangate\.js$/.test(args[0]));
}
