/** Temp rule directories for the rules tests. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { PlangateError } from '../../src/core/errors.js';

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A fresh temp directory holding `files` (name → content), removed after the test. */
export async function ruleDir(files: Record<string, string | Uint8Array> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'plangate-rules-'));
  made.push(dir);
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
  return dir;
}

/** Runs `fn`, expects it to throw a PlangateError, and returns it. */
export async function caught(fn: () => unknown): Promise<PlangateError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PlangateError);
    return err as PlangateError;
  }
  throw new Error('expected an error, got none');
}

/** The error's problems as `file:line:col: message` lines. */
export function lines(err: PlangateError): string[] {
  return err.message.split('\n');
}
