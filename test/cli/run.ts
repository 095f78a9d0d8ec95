/** Runs the CLI in-process with captured output and its own environment. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/adapters/cli/main.js';

export interface CliResult {
  status: number;
  out: string;
  err: string;
}

export function tempDir(prefix = 'plangate-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let out = '';
  let err = '';
  const status = await main(args, {
    out: (t) => { out += t.endsWith('\n') ? t : `${t}\n`; },
    err: (t) => { err += t.endsWith('\n') ? t : `${t}\n`; },
    env,
  });
  return { status, out, err };
}
