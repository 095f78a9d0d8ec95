/**
 * Loopback helpers for tests that start a server process: a free port to
 * give it, and a wait until it answers.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Polls `url` until it answers 200. Throws after `timeoutMs`, or as soon as
 * `child` (the process that should serve it) has exited.
 *
 * @example
 * await waitFor(`http://127.0.0.1:${port}/health`, 30_000, child);
 */
export async function waitFor(url: string, timeoutMs = 20_000, child?: ChildProcess): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
      last = r.status;
    } catch (error) {
      last = error;
    }
    if (child && (child.exitCode !== null || child.signalCode !== null)) throw new Error(`${url} did not come up: its process exited (${child.exitCode ?? child.signalCode})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not come up: ${String(last)}`);
}
