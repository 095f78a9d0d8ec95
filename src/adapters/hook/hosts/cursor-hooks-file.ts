/**
 * Whether Cursor will also run plangate's `beforeMCPExecution` hook for a
 * seat: the fact `plangate hook --format cursor --mcp-via
 * beforeMCPExecution` needs before it leaves an MCP call of `preToolUse` to
 * that hook. Read from the hooks files Cursor loads (Cursor's hooks
 * reference, https://cursor.com/docs/agent/hooks, "Configuration": the
 * project's `<root>/.cursor/hooks.json`, the user's `~/.cursor/hooks.json`
 * and the enterprise file, `/etc/cursor/hooks.json` on Linux,
 * `/Library/Application Support/Cursor/hooks.json` on macOS,
 * `C:\ProgramData\Cursor\hooks.json` on Windows). Team hooks distributed
 * from Cursor's dashboard are not on disk where plangate can read them, so
 * they never count.
 *
 * An entry counts only when it is plangate's hook for Cursor (`plangate …
 * hook --format cursor`), for the same seat (`--agent SEAT`), with
 * `failClosed: true` (a hook that cannot start then blocks the call) and no
 * `matcher` (so it sees every MCP tool). A file that cannot be read or is
 * not a hooks file counts as no entry: the MCP call is then decided by the
 * `preToolUse` hook itself, as without `--mcp-via`.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The hooks files Cursor reads besides the projects' (enterprise and user), for this platform. */
function sharedFiles(home: string): string[] {
  const enterprise = platform() === 'darwin' ? '/Library/Application Support/Cursor/hooks.json'
    : platform() === 'win32' ? 'C:\\ProgramData\\Cursor\\hooks.json'
      : '/etc/cursor/hooks.json';
  return [enterprise, join(home, '.cursor', 'hooks.json')];
}

/** Largest hooks file read, in bytes: a larger one counts as no entry. */
const MAX_HOOKS_FILE_BYTES = 1024 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readHooks(file: string): unknown[] {
  try {
    if (statSync(file).size > MAX_HOOKS_FILE_BYTES) return [];
    const doc: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const hooks = isRecord(doc) ? doc['hooks'] : undefined;
    const entries = isRecord(hooks) ? hooks['beforeMCPExecution'] : undefined;
    return Array.isArray(entries) ? entries : [];
  } catch {
    return [];
  }
}

/**
 * The words of a plain command line (spaces, single and double quotes,
 * backslashes), or undefined for anything a shell would do more with
 * (`;`, `|`, `&`, `$`, backquotes, redirections, comments): such a command
 * is never taken for plangate's hook.
 *
 * @example
 * commandWords(`plangate hook --plangate-server-command 'plangate mcp'`) // ['plangate', 'hook', '--plangate-server-command', 'plangate mcp']
 */
export function commandWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if ('$`\\'.includes(c)) return undefined;
      else word += c;
    } else if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (';|&$`<>#\\\n(){}*?~'.includes(c)) {
      return undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote !== undefined) return undefined;
  if (word !== undefined) words.push(word);
  return words;
}

/** The value of the last `--NAME VALUE` or `--NAME=VALUE` among `words` (as the command line parser takes it). */
function optionValue(words: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < words.length; i++) {
    if (words[i] === name) value = words[++i];
    else if (words[i]!.startsWith(`${name}=`)) value = words[i]!.slice(name.length + 1);
  }
  return value;
}

/**
 * Whether a hooks entry is plangate's fail-closed `beforeMCPExecution` hook
 * for Cursor and this seat: `plangate` (or Node and plangate's bin/plangate.js)
 * run with `hook --format cursor --agent SEAT`.
 *
 * @example
 * isPlangateMcpHook({ command: 'plangate hook --format cursor --agent 0xDEV --plangate-server-command x', failClosed: true }, '0xDEV') // true
 */
export function isPlangateMcpHook(entry: unknown, seat: string): boolean {
  if (!isRecord(entry) || entry['failClosed'] !== true || entry['matcher'] !== undefined) return false;
  const command = entry['command'];
  const words = typeof command === 'string' ? commandWords(command) : undefined;
  if (words === undefined || words.length === 0) return false;
  const launcher = /(^|\/)plangate(\.js)?$/.test(words[0]!) ? 1
    : /(^|\/)node(\.exe)?$/.test(words[0]!) && /(^|\/)bin\/plangate\.js$/.test(words[1] ?? '') ? 2 : 0;
  if (launcher === 0) return false;
  const at = words.indexOf('hook', launcher);
  if (at === -1) return false;
  const args = words.slice(at + 1);
  return optionValue(args, '--format') === 'cursor' && optionValue(args, '--agent') === seat;
}

/**
 * Looks for plangate's `beforeMCPExecution` hook for `seat` in the hooks
 * files Cursor reads for a workspace with these roots.
 *
 * @example
 * mcpHookConfigured(['/srv/notes'], '0xDEV') // { found: true, looked: ['/srv/notes/.cursor/hooks.json', …] }
 */
export function mcpHookConfigured(roots: readonly string[], seat: string, home = homedir()): { found: boolean; looked: string[] } {
  const looked = [...roots.filter((r) => isAbsolute(r)).map((r) => join(r, '.cursor', 'hooks.json')), ...sharedFiles(home)];
  const found = looked.some((file) => readHooks(file).some((entry) => isPlangateMcpHook(entry, seat)));
  return { found, looked };
}
