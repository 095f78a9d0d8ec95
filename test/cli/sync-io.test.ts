/**
 * syncIo (src/adapters/cli/io.ts), the output of `plangate hook`: written
 * straight to fds 1 and 2, with whatever a pipe cannot take at once handed
 * to process.stdout / process.stderr, so that nothing is lost or reordered
 * when the reader is slow, and the lines end as processIo ends them.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** Runs `code` (with syncIo imported) in a child and reads its stdout and stderr only after `delayMs`. */
function run(code: string, delayMs: number): Promise<{ out: string; err: string; status: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { syncIo } from './src/adapters/cli/io.ts';\n${code}`], { cwd: ROOT });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.pause();
  child.stderr.pause();
  setTimeout(() => {
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdout.resume();
    child.stderr.resume();
  }, delayMs);
  return new Promise((done) => child.on('close', (status) => done({ out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString(), status })));
}

describe('syncIo', () => {
  it('ends each text with one newline, on the fd it names', async () => {
    const r = await run(`syncIo.out('{"a":1}'); syncIo.err('log line\\n'); syncIo.out('é');`, 0);
    expect(r).toEqual({ out: '{"a":1}\né\n', err: 'log line\n', status: 0 });
  });

  it('delivers every byte, in order, of more than a pipe holds while the reader waits', async () => {
    const r = await run(`syncIo.out('a'.repeat(1 << 20)); syncIo.out('b'.repeat(300000)); syncIo.err('e'.repeat(200000));`, 500);
    expect(r.status).toBe(0);
    expect(r.out).toBe(`${'a'.repeat(1 << 20)}\n${'b'.repeat(300000)}\n`);
    expect(r.err).toBe(`${'e'.repeat(200000)}\n`);
  });
});
