/** Rule directories and suites in temp dirs for the authoring commands' tests. */
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

/** A temp directory holding the given files (name → text). */
export function dirWith(files: Record<string, string>, prefix = 'plangate-authoring-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A temp copy of the example rules (with their suite), plus extra files. */
export function examplesWith(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-authoring-'));
  cpSync(EXAMPLES, dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

export const RULES = `planRequired:
  workspace: { mode: spends_only }
  crews:
    desk: { mode: side_effects, windowMin: 15 }
    trading: { mode: side_effects, acceptUpstream: true }
  agents:
    0xBOT: { mode: off }
tools:
  read: [github.get_*, fs.read_file]
  effect: [github.merge_pull_request]
  spend: [wallet.propose_spend, payments.*]
planningGate:
  defaults: { readGuardMaxBytes: 1000 }
  profiles:
    careful: { enabled: true }
    loose: { readGuardMaxBytes: 0 }
  crews: { trading: careful }
readGuard:
  tools:
    fs.read_file: { path: path, range: [offset, limit] }
`;
