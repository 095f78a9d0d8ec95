/**
 * The agent hosts plangate's hook answers, by their `--format` names, and
 * which one a payload comes from when no format is given.
 */
import type { HostContract, HostName } from '../contract.js';
import { claudeCode } from './claude-code.js';
import { cline } from './cline.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { geminiCli } from './gemini-cli.js';
import { windsurf } from './windsurf.js';

/** Every host's contract, by name (one line per host). */
export const HOSTS: Partial<Record<HostName, HostContract>> = {
  'claude-code': claudeCode,
  codex,
  'gemini-cli': geminiCli,
  cursor,
  copilot,
  windsurf,
  cline,
};

/**
 * The one host whose payload `doc` can only be, else undefined (no host's, or several's).
 *
 * @example
 * recognise({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 't', transcript_path: '/x' })?.name // 'claude-code'
 */
export function recognise(doc: Record<string, unknown>): HostContract | undefined {
  const found = Object.values(HOSTS).filter((host) => host.recognises(doc));
  return found.length === 1 ? found[0] : undefined;
}

/**
 * The contract of a host name, or undefined for a name plangate does not answer.
 *
 * @example
 * hostNamed('claude-code')?.source // 'https://code.claude.com/docs/en/hooks …'
 */
export function hostNamed(name: string): HostContract | undefined {
  return Object.hasOwn(HOSTS, name) ? HOSTS[name as HostName] : undefined;
}
