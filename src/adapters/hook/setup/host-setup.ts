/**
 * What `plangate init --hook NAME` writes into each host's own settings:
 * the hook that runs `plangate hook --format NAME --agent SEAT` before every
 * tool call (set to fail closed where the host has such a setting), and the
 * `plangate` MCP server entry that serves plangate's own tools. Each file is
 * the one the host's documentation names (cited in the host's contract
 * module); plangate's entries are merged beside the user's, replacing only
 * an earlier plangate entry, so a second run changes nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml, TomlError } from 'smol-toml';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { HostName } from '../contract.js';
import { MCP_VIA_EVENT } from '../options.js';
import { arrayAt, checkPlainFile, isJsonObject, jsonText, objectAt, readJsonObject, writeIfChanged, type Json, type JsonObject } from './json-settings.js';
import { isOurs, upsertEntry, upsertInGroups, upsertServer } from './merge.js';

export interface SetupOptions {
  host: HostName;
  /** The project the host works in: project-level settings go under it. */
  project: string;
  /** The user's home directory, for user-level settings. */
  home: string;
  /** Write user-level files too (some hosts keep MCP servers only there). */
  user: boolean;
  /** The hook command, as the host's shell runs it. */
  hookCommand: string;
  /** plangate's MCP server: its name in the host's configuration, and how to start it. */
  mcp: { name: string; command: string; args: string[] };
}

/**
 * One file's change, worked out before anything is written: `after` is the
 * whole new text (undefined for a user-level file left for the user to
 * edit, with `text`, the entry to add).
 */
export interface Pending {
  file: string;
  what: string;
  before: string | undefined;
  after: string | undefined;
  mode?: number;
  text?: string;
}

/** One file's outcome, for the report. */
export interface Change {
  file: string;
  what: string;
  outcome: 'created' | 'updated' | 'unchanged' | 'not written';
  /** For `not written`: what to add by hand. */
  text?: string;
}

/** A word the host's shell reads as one argument. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Cursor's `beforeMCPExecution` names a server it launches by its command:
 * the entry's `command` and `args` joined by spaces (see hosts/cursor.ts).
 *
 * @example
 * cursorReportedCommand({ command: 'plangate', args: ['mcp', '--agent', '0xDEV'] }) // 'plangate mcp --agent 0xDEV'
 */
export function cursorReportedCommand(server: { command: string; args: string[] }): string {
  return [server.command, ...server.args].join(' ');
}

/**
 * Writes the changes worked out by {@link setupHost} (only after all of them
 * were worked out, so a refused file leaves every file as it was).
 *
 * @example
 * applyChanges(setupHost(options)).map((c) => `${c.outcome} ${c.file}`)
 */
export function applyChanges(pending: readonly Pending[]): Change[] {
  return pending.map((c) => {
    if (c.after === undefined) return { file: c.file, what: c.what, outcome: 'not written', ...(c.text !== undefined ? { text: c.text } : {}) };
    const written = writeIfChanged(c.file, c.after, c.before, c.mode);
    return { file: c.file, what: c.what, outcome: !written ? 'unchanged' : c.before === undefined ? 'created' : 'updated' };
  });
}

/** Reads a JSON settings file and works out its text with `edit` applied. */
function editJson(file: string, what: string, within: string, edit: (doc: JsonObject) => void): Pending {
  const { doc, text } = readJsonObject(file, within);
  edit(doc);
  return { file, what, before: text, after: jsonText(doc) };
}

function mcpServersEdit(file: string, o: SetupOptions, entry: JsonObject, key = 'mcpServers'): (doc: JsonObject) => void {
  return (doc) => upsertServer(file, objectAt(file, doc, key, key), o.mcp.name, entry, key);
}

/** A user-level file: written with --user, otherwise reported with the entry to add. */
function userJson(file: string, what: string, o: SetupOptions, edit: (doc: JsonObject) => void, shown: JsonObject): Pending {
  if (o.user) return editJson(file, what, o.home, edit);
  return { file, what, before: undefined, after: undefined, text: JSON.stringify(shown, null, 2) };
}

/** Codex keeps MCP servers in TOML: a `[mcp_servers.NAME]` table is appended when absent. */
function codexMcp(file: string, o: SetupOptions): Pending {
  const what = 'the plangate MCP server';
  checkPlainFile(file, o.project);
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new PlangateError(ErrorCode.InvalidInput, `${file}: cannot be read: ${(error as Error).message}`);
  }
  const parsed = parseTomlAt(file, text ?? '');
  const entry = { command: o.mcp.command, args: o.mcp.args };
  const servers = parsed['mcp_servers'];
  const existing = isJsonObject(servers as Json) ? (servers as JsonObject)[o.mcp.name] : undefined;
  if (existing !== undefined) {
    if (JSON.stringify(existing) === JSON.stringify(entry)) return { file, what, before: text, after: text };
    throw new PlangateError(ErrorCode.InvalidInput, `${file}: [mcp_servers.${o.mcp.name}] exists and differs from plangate's entry; edit or remove it by hand, then run plangate init again; nothing was changed`);
  }
  const table = stringifyToml({ mcp_servers: { [o.mcp.name]: entry } });
  const next = `${text === undefined || text === '' ? '' : `${text.replace(/\n*$/, '\n')}\n`}${table.replace(/\n*$/, '\n')}`;
  parseTomlAt(file, next); // an inline `mcp_servers = { … }` would make the appended table invalid: refused, not written
  return { file, what, before: text, after: next };
}

function parseTomlAt(file: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) throw new PlangateError(ErrorCode.InvalidInput, `${file}:${error.line}:${error.column}: not valid TOML (${error.message.split('\n')[0]}); nothing was changed`);
    throw error;
  }
}

/** Cline runs an executable named after the hook: plangate's is a two-line script, never written over another. */
function clineScript(file: string, o: SetupOptions): Pending {
  checkPlainFile(file, o.project);
  const text = `#!/bin/sh\n# plangate decides every Cline tool call (written by plangate init --hook cline).\nexec ${o.hookCommand}\n`;
  let before: string | undefined;
  try {
    before = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new PlangateError(ErrorCode.InvalidInput, `${file}: cannot be read: ${(error as Error).message}`);
  }
  if (before !== undefined && before !== text && !isOurs('cline', before.split('\n').find((l) => l.startsWith('exec ')) ?? '')) {
    throw new PlangateError(ErrorCode.InvalidInput, `${file} exists and is not plangate's; Cline runs one PreToolUse hook per directory, so call plangate from it yourself (${o.hookCommand}); nothing was changed`);
  }
  return { file, what: 'the PreToolUse hook', before, after: text, mode: 0o755 };
}

/**
 * Works out the host's hook configuration and plangate's MCP server entry
 * (for a user-level file without `user`: the entry to add by hand).
 *
 * @example
 * applyChanges(setupHost({ host: 'cursor', project: '/srv/notes', home: '/home/dev', user: false, hookCommand: 'plangate hook --format cursor --agent 0xDEV', mcp: { name: 'plangate', command: 'plangate', args: ['mcp', '--agent', '0xDEV', '--plangate-tools-only'] } }))
 * // [{ file: '/srv/notes/.cursor/hooks.json', outcome: 'created', … }, { file: '/srv/notes/.cursor/mcp.json', … }]
 */
export function setupHost(o: SetupOptions): Pending[] {
  const p = (...parts: string[]) => join(o.project, ...parts);
  const h = (...parts: string[]) => join(o.home, ...parts);
  const server: JsonObject = { command: o.mcp.command, args: o.mcp.args };
  const hook = o.host === 'cursor' ? 'the hooks' : 'the hook';
  const mcp = 'the plangate MCP server';
  switch (o.host) {
    case 'claude-code': {
      const file = p('.claude', 'settings.json');
      return [
        editJson(file, hook, o.project, (doc) => {
          const groups = arrayAt(file, objectAt(file, doc, 'hooks', 'hooks'), 'PreToolUse', 'hooks.PreToolUse');
          // onFailure "block": a hook that cannot start, times out or crashes blocks the call (Claude Code 2.1.295 and later).
          upsertInGroups(file, groups, { matcher: '*', hooks: [{ type: 'command', command: o.hookCommand, onFailure: 'block' }] }, o.host, 'hooks.PreToolUse');
        }),
        editJson(p('.mcp.json'), mcp, o.project, mcpServersEdit(p('.mcp.json'), o, server)),
      ];
    }
    case 'codex': {
      const file = p('.codex', 'hooks.json');
      return [
        editJson(file, hook, o.project, (doc) => {
          const groups = arrayAt(file, objectAt(file, doc, 'hooks', 'hooks'), 'PreToolUse', 'hooks.PreToolUse');
          upsertInGroups(file, groups, { hooks: [{ type: 'command', command: o.hookCommand }] }, o.host, 'hooks.PreToolUse');
        }),
        codexMcp(p('.codex', 'config.toml'), o),
      ];
    }
    case 'gemini-cli': {
      const file = p('.gemini', 'settings.json');
      return [
        editJson(file, `${hook} and ${mcp}`, o.project, (doc) => {
          const groups = arrayAt(file, objectAt(file, doc, 'hooks', 'hooks'), 'BeforeTool', 'hooks.BeforeTool');
          upsertInGroups(file, groups, { matcher: '.*', hooks: [{ type: 'command', name: 'plangate', command: o.hookCommand }] }, o.host, 'hooks.BeforeTool');
          mcpServersEdit(file, o, server)(doc);
        }),
      ];
    }
    case 'cursor': {
      const file = p('.cursor', 'hooks.json');
      // preToolUse sees every tool (Shell, Read, Write, MCP:…) but names no MCP server, so its MCP calls are left to
      // beforeMCPExecution, which names plangate's server by the command written into mcp.json below. failClosed on
      // both: a hook that cannot run blocks the call.
      const toolHook = `${o.hookCommand} --mcp-via ${MCP_VIA_EVENT}`;
      const mcpHook = `${o.hookCommand} --plangate-server-command ${shellWord(cursorReportedCommand(o.mcp))}`;
      return [
        editJson(file, hook, o.project, (doc) => {
          if (doc['version'] === undefined) doc['version'] = 1;
          const hooks = objectAt(file, doc, 'hooks', 'hooks');
          upsertEntry(arrayAt(file, hooks, 'preToolUse', 'hooks.preToolUse'), { command: toolHook, failClosed: true }, 'command', o.host);
          upsertEntry(arrayAt(file, hooks, MCP_VIA_EVENT, `hooks.${MCP_VIA_EVENT}`), { command: mcpHook, failClosed: true }, 'command', o.host);
        }),
        editJson(p('.cursor', 'mcp.json'), mcp, o.project, mcpServersEdit(p('.cursor', 'mcp.json'), o, server)),
      ];
    }
    case 'copilot': {
      const file = p('.github', 'hooks', 'plangate.json');
      const mcpFile = h('.copilot', 'mcp-config.json');
      const entry: JsonObject = { type: 'local', ...server, tools: ['*'] };
      return [
        editJson(file, hook, o.project, (doc) => {
          if (doc['version'] === undefined) doc['version'] = 1;
          upsertEntry(arrayAt(file, objectAt(file, doc, 'hooks', 'hooks'), 'preToolUse', 'hooks.preToolUse'), { type: 'command', bash: o.hookCommand, timeoutSec: 30 }, 'bash', o.host);
        }),
        userJson(mcpFile, mcp, o, mcpServersEdit(mcpFile, o, entry), { mcpServers: { [o.mcp.name]: entry } }),
      ];
    }
    case 'windsurf': {
      const file = p('.windsurf', 'hooks.json');
      const mcpFile = h('.codeium', 'windsurf', 'mcp_config.json');
      return [
        editJson(file, hook, o.project, (doc) => {
          const hooks = objectAt(file, doc, 'hooks', 'hooks');
          for (const event of ['pre_run_command', 'pre_write_code', 'pre_read_code', 'pre_mcp_tool_use']) {
            upsertEntry(arrayAt(file, hooks, event, `hooks.${event}`), { command: o.hookCommand, show_output: true }, 'command', o.host);
          }
        }),
        userJson(mcpFile, mcp, o, mcpServersEdit(mcpFile, o, server), { mcpServers: { [o.mcp.name]: server } }),
      ];
    }
    case 'cline': {
      // Cline keeps MCP servers in its editor's extension storage (cline_mcp_settings.json), whose place depends on the editor: shown, never guessed.
      return [
        clineScript(p('.clinerules', 'hooks', 'PreToolUse'), o),
        { file: 'cline_mcp_settings.json (Cline: MCP Servers > Configure)', what: mcp, before: undefined, after: undefined, text: JSON.stringify({ mcpServers: { [o.mcp.name]: server } }, null, 2) },
      ];
    }
  }
}
