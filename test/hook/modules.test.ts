/**
 * What a `plangate hook` process loads: it starts once per tool call, so it
 * loads only what deciding one call needs. With the checked rules cached
 * (src/main/rules-cache.ts) it loads no YAML parser and no rules validator;
 * it never loads the MCP SDK, OpenTelemetry, PostgreSQL's driver, the
 * in-memory store, the audit reader or the prune code.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_CHILD, makeWorld } from '../mcp/support.js';

const RECORDER = resolve(import.meta.dirname, 'support', 'record-modules.mjs');

describe('a plangate hook process', () => {
  const w = makeWorld('planRequired:\n  workspace: { mode: side_effects, windowMin: 10 }\ntools:\n  read: [Read]\n');
  const home = mkdtempSync(join(os.tmpdir(), 'plangate-hook-modules-'));
  const write = JSON.stringify({ session_id: 's', transcript_path: '/tmp/t', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: '/tmp/x', content: 'hi' }, tool_use_id: 't' });

  function loaded(): string[] {
    const record = join(home, `modules-${Math.random()}.txt`);
    const r = spawnSync(process.execPath, ['--import', RECORDER, '--import', 'tsx', CLI_CHILD, '--rules', w.rules, '--store', w.store, '--audit', w.audit, 'hook', '--agent', '0xWORKER', '--format', 'claude-code'], {
      input: write, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: home, RECORD_MODULES: record },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('"permissionDecision":"deny"');
    return readFileSync(record, 'utf8').split('\n');
  }

  const named = (urls: string[], pattern: RegExp) => urls.filter((u) => pattern.test(u));

  it('parses the rules once, then takes them from the cache without loading YAML or the validator', () => {
    const first = loaded();
    expect(named(first, /node_modules\/yaml\//).length).toBeGreaterThan(0);
    const cached = loaded();
    expect(named(cached, /node_modules\/yaml\/|rules-validator|src\/rules\/(parse|normalize|schema)\./)).toEqual([]);
    expect(named(cached, /src\/main\/rules-cache\./)).toHaveLength(1);
  }, 60_000);

  it('loads no driver, SDK or module that deciding one call does not need', () => {
    const urls = loaded();
    expect(named(urls, /@modelcontextprotocol|@opentelemetry|node_modules\/pg\/|src\/facts\/memory\/|audit\/jsonl-reader|sqlite\/prune|facts\/postgres\/(store|pool|listen)\./)).toEqual([]);
    expect(named(urls, /node_modules\/better-sqlite3\//).length).toBeGreaterThan(0);
  }, 60_000);
});
