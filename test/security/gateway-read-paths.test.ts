/**
 * Whole-file reads that name a big file the way the real MCP filesystem
 * server resolves it but plangate once did not: a Unicode-equivalent name
 * (the server matches an entry equal in NFC), and a relative path for the
 * second of two filesystem upstreams (each resolves against its own first
 * directory), a relative path for a server started from a directory of its
 * own code (`node DIR files/`), and a line count as large as the file (the server's `head`
 * and `tail` count lines, which do not bound bytes). Each is refused by the
 * read guard, and the server never returns the big file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { call, closeAfterEach, fsUpstream, httpHarness, makeWorld, textOf } from '../mcp/support.js';

const BIG = 'line of a big log\n'.repeat(400); // 7200 bytes; the ceiling in RULES is 1000

/** The call was refused by the read guard (for `reason`, when given), and none of a big file came back. */
function expectRefusedUnread(r: Awaited<ReturnType<typeof call>>, reason?: string): void {
  const text = textOf(r);
  expect(text.includes('line of a big log') || text.includes('xxxxxxxx'), `the server returned the file (${text.length} chars)`).toBe(false);
  expect(r.structuredContent).toMatchObject({ check: 'read_guard', ...(reason ? { reason } : {}) });
}

describe('the read guard and the filesystem server resolve paths alike', () => {
  const closers = closeAfterEach();

  it('a Unicode-equivalent spelling of a big file is refused (NFD name for an NFC file)', async () => {
    const w = makeWorld();
    const nfc = 'caf\u00e9.log';
    writeFileSync(join(w.files, nfc), BIG);
    const h = await httpHarness(w);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');

    // The honest spelling is refused.
    expect((await call(c, 'read_text_file', { path: join(w.files, nfc) })).structuredContent).toMatchObject({ check: 'read_guard' });
    // The decomposed spelling names no file for plangate ("missing": passed through), but the server
    // matches it to the NFC entry (resolveUnicodeEquivalentPath) and reads the whole big file.
    const nfd = 'cafe\u0301.log';
    const r = await call(c, 'read_text_file', { path: join(w.files, nfd) });
    expectRefusedUnread(r);
  }, 30_000);

  it('an ASCII file name reached through a compatibility character is refused (KELVIN SIGN for K)', async () => {
    const w = makeWorld();
    writeFileSync(join(w.files, 'KEYS.log'), BIG);
    const h = await httpHarness(w);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    const r = await call(c, 'read_multiple_files', { paths: ['\u212AEYS.log'] });
    expectRefusedUnread(r);
  }, 30_000);

  it('a relative path for the second of two filesystem upstreams is checked where that server reads it', async () => {
    const w = makeWorld();
    const docs = join(w.root, 'docs');
    mkdirSync(docs);
    writeFileSync(join(docs, 'big.log'), 'small here\n'); // the first root has a small file of that name
    writeFileSync(join(w.files, 'big.log'), BIG);          // the second server's big one
    const up = [
      { name: 'docs', kind: 'stdio' as const, command: process.execPath, args: [(fsUpstream(w) as { args: string[] }).args[0] as string, docs] },
      fsUpstream(w, 'work'),
    ];
    const h = await httpHarness(w, up);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    // The absolute path is refused, as it should be.
    expect((await call(c, 'work__read_text_file', { path: join(w.files, 'big.log') })).structuredContent).toMatchObject({ check: 'read_guard' });
    // The relative one is checked against docs/ (the first root of all upstreams) but read by work from files/.
    const r = await call(c, 'work__read_text_file', { path: 'big.log' });
    expectRefusedUnread(r);
  }, 30_000);

  it('a relative path is checked in every directory on the command line, not only in the first, which may be the server\'s code', async () => {
    const w = makeWorld();
    writeFileSync(join(w.files, 'big.log'), BIG);
    // `node DIR files/`: Node runs the directory's index.js, which starts the filesystem server; the
    // server's one directory is files/, but DIR is the first directory on the command line.
    const launcher = join(w.root, 'launcher');
    mkdirSync(launcher);
    const server = (fsUpstream(w) as { args: string[] }).args[0] as string;
    writeFileSync(join(launcher, 'index.js'), `import(${JSON.stringify(pathToFileURL(server).href)});\n`);
    const h = await httpHarness(w, [{ name: 'fs', kind: 'stdio', command: process.execPath, args: [launcher, w.files] }]);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    expectRefusedUnread(await call(c, 'read_text_file', { path: 'big.log' }), 'whole_file_too_large');
    // A file the guard may not look at is refused for that reason, not for a size it never measured.
    writeFileSync(join(w.root, 'notes.txt'), 'small\n');
    expectRefusedUnread(await call(c, 'read_text_file', { path: join(w.root, 'notes.txt') }), 'outside_roots');
  }, 30_000);

  it('a line count that takes in the whole big file is refused, from either end; a few lines pass', async () => {
    const w = makeWorld();
    writeFileSync(join(w.files, 'big.log'), BIG);
    const minified = 'x'.repeat(7000); // one line, no newline: a single line is the whole file
    writeFileSync(join(w.files, 'min.js'), minified);
    const h = await httpHarness(w);
    closers.push(() => h.close());
    const c = await h.client('0xWORKER');
    const path = join(w.files, 'big.log');

    for (const args of [{ path, head: 1000 }, { path, tail: 400 }, { path: join(w.files, 'min.js'), head: 1 }, { path: join(w.files, 'min.js'), tail: 1 }]) {
      const r = await call(c, 'read_text_file', args);
      expectRefusedUnread(r, 'lines_too_large');
      expect(textOf(r)).toContain('Ask for fewer lines');
    }
    // 55 lines of 18 bytes are 989 bytes, under the 1000-byte ceiling; 56 are not.
    const few = await call(c, 'read_text_file', { path, head: 55 });
    expect(few.isError, textOf(few)).toBeFalsy();
    expect(textOf(few)).toBe(BIG.split('\n').slice(0, 55).join('\n'));
    expect((await call(c, 'read_text_file', { path, head: 56 })).structuredContent).toMatchObject({ reason: 'lines_too_large' });
    const last = await call(c, 'read_text_file', { path, tail: 10 });
    expect(last.isError, textOf(last)).toBeFalsy();
  }, 30_000);
});
