/**
 * What the host contracts have in common: reading a payload's fields with a
 * specific error for each malformed one, bounded sizes, and the two reply
 * shapes (a JSON answer with exit 0, or a JSON answer plus exit 2 with the
 * reason on stderr for the hosts that treat exit 2 as a block).
 */
import { isAbsolute } from 'node:path';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import type { HookCall, HookReply, HostName } from '../contract.js';

/** Longest tool or server name read from a payload, in characters. */
export const MAX_NAME_CHARS = 512;
/** Largest tool input carried as a JSON string inside a payload (Cursor's MCP input, Copilot's toolArgs), in characters. */
export const MAX_INPUT_TEXT_CHARS = 1024 * 1024;
/** Longest id (session, conversation, task) read from a payload, in characters. */
export const MAX_ID_CHARS = 512;

/** The error for a payload this host's contract cannot read. */
export function bad(host: HostName, message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, `plangate hook (${host}): ${message}`);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A required, non-empty, bounded name (a tool's, a server's). */
export function nameField(host: HostName, value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw bad(host, `${field} is missing`);
  if (value.length > MAX_NAME_CHARS) throw bad(host, `${field} is longer than ${MAX_NAME_CHARS} characters`);
  if (value.includes('\0')) throw bad(host, `${field} contains a NUL character`);
  return value;
}

/** A required file path the host names (bounded, no NUL). */
export function pathField(host: HostName, value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw bad(host, `${field} is missing`);
  if (value.length > 4096 || value.includes('\0')) throw bad(host, `${field} is not a usable path`);
  return value;
}

/** A tool's arguments: an object, or absent (no arguments). */
export function inputObject(host: HostName, value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw bad(host, `${field} is not an object`);
  return value;
}

/** A tool's arguments carried as a JSON string (or, tolerated, already an object). */
export function inputFromJsonText(host: HostName, value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'string') return inputObject(host, value, field);
  if (value.trim() === '') return {};
  if (value.length > MAX_INPUT_TEXT_CHARS) throw bad(host, `${field} is longer than ${MAX_INPUT_TEXT_CHARS} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw bad(host, `${field} is not JSON`);
  }
  if (!isObject(parsed)) throw bad(host, `${field} is not a JSON object`);
  return parsed;
}

/** An optional id the host writes (a session's, a conversation's): kept when a bounded non-empty string. */
export function idField(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= MAX_ID_CHARS && !value.includes('\0') ? value : undefined;
}

/**
 * An optional working directory: absent or empty is none; anything else
 * must be an absolute path, since a relative one would be measured
 * somewhere other than where the host's tool reads it.
 */
export function cwdField(host: HostName, value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !isAbsolute(value) || value.includes('\0') || value.length > 4096) throw bad(host, `${field} is not an absolute path`);
  return value;
}

/** The only workspace root, when the host names exactly one (absolute); otherwise none. */
export function soleRoot(host: HostName, value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw bad(host, `${field} is not an array`);
  return value.length === 1 ? cwdField(host, value[0], `${field}[0]`) : undefined;
}

/** Most workspace roots read from a payload. */
export const MAX_ROOTS = 64;

/** Every workspace root the host names (each absolute); none when absent. */
export function rootsField(host: HostName, value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad(host, `${field} is not an array`);
  if (value.length > MAX_ROOTS) throw bad(host, `${field} has more than ${MAX_ROOTS} entries`);
  return value.map((v, i) => cwdField(host, v, `${field}[${i}]`)).filter((v): v is string => v !== undefined);
}

/** Builds a HookCall, leaving out what the payload did not give. */
export function call(tool: string, input: Record<string, unknown>, extra: { mcp?: HookCall['mcp'] | undefined; mcpEndpoint?: HookCall['mcpEndpoint'] | undefined; mcpUnnamed?: boolean; roots?: string[]; sessionId?: string | undefined; cwd?: string | undefined }): HookCall {
  return {
    tool,
    input,
    ...(extra.mcp !== undefined ? { mcp: extra.mcp } : {}),
    ...(extra.mcpEndpoint !== undefined ? { mcpEndpoint: extra.mcpEndpoint } : {}),
    ...(extra.mcpUnnamed === true ? { mcpUnnamed: true } : {}),
    ...(extra.roots !== undefined ? { roots: extra.roots } : {}),
    ...(extra.sessionId !== undefined ? { sessionId: extra.sessionId } : {}),
    ...(extra.cwd !== undefined ? { cwd: extra.cwd } : {}),
  };
}

/** A JSON answer on stdout, exit 0: the host reads the decision from the JSON. */
export function jsonReply(answer: Record<string, unknown> | undefined): HookReply {
  return { stdout: answer === undefined ? '' : `${JSON.stringify(answer)}\n`, stderr: '', exitCode: 0 };
}

/** The exit code that blocks a call in the hosts that treat exit 2 as a block. */
export const EXIT_BLOCK = 2;

/**
 * A refusal for a host that blocks on exit 2: the JSON answer (for a host
 * that reads it whatever the exit code), the reason on stderr (where the
 * host takes the reason from on exit 2), exit 2.
 */
export function blockReply(answer: Record<string, unknown> | undefined, reason: string): HookReply {
  return { stdout: answer === undefined ? '' : `${JSON.stringify(answer)}\n`, stderr: `${oneReason(reason)}\n`, exitCode: EXIT_BLOCK };
}

/** A reason as one non-empty text (hosts drop an empty reason, and some refuse to block on one). */
export function oneReason(reason: string): string {
  const text = reason.trim();
  return text === '' ? 'refused by plangate' : text;
}

/**
 * Splits `<prefix><server><sep><tool>` where the server's name cannot
 * contain the separator, at the first separator: the MCP naming of Claude
 * Code and Codex (`mcp__server__tool`) and of Cline (`server__tool`).
 */
export function splitMcpName(name: string, prefix: string, separator: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  const at = rest.indexOf(separator);
  if (at <= 0 || at + separator.length >= rest.length) return undefined;
  return { server: rest.slice(0, at), tool: rest.slice(at + separator.length) };
}
