/**
 * The classification of each host's own tools (examples/hosts/<host>.yaml):
 * each file loads with `plangate check`, and with a side_effects rule the
 * host's read tools are never gated
 * while its write and shell tools need a plan, through the real policy.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST_NAMES, type HostName } from '../../src/adapters/hook/contract.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { cli, tempDir } from '../cli/run.js';

const HOSTS_DIR = resolve(import.meta.dirname, '..', '..', 'examples', 'hosts');

/** Each host's read tool, and tools that must be effects, as the host names them. */
const TOOLS: Record<HostName, { read: string[]; effect: string[] }> = {
  'claude-code': { read: ['Read', 'Grep', 'Glob'], effect: ['Write', 'Edit', 'Bash', 'NotebookEdit'] },
  codex: { read: [], effect: ['Bash', 'apply_patch'] },
  'gemini-cli': { read: ['read_file', 'grep_search', 'glob', 'list_directory'], effect: ['write_file', 'replace', 'run_shell_command'] },
  cursor: { read: ['Read', 'Grep'], effect: ['Write', 'Shell'] },
  copilot: { read: ['view', 'grep', 'glob'], effect: ['create', 'edit', 'bash'] },
  windsurf: { read: ['read_code'], effect: ['write_code', 'run_command'] },
  cline: { read: ['read_file', 'read_files', 'list_files', 'search_files'], effect: ['write_to_file', 'replace_in_file', 'execute_command', 'run_commands'] },
};

describe('host classification files', () => {
  const opened: Plangate[] = [];
  afterAll(async () => {
    for (const pg of opened) await pg.close();
  });

  it('there is one per host', () => {
    for (const host of HOST_NAMES) expect(TOOLS[host], host).toBeDefined();
  });

  for (const host of HOST_NAMES) {
    it(`${host}: loads with plangate check; its read tools are reads and its write and shell tools effects`, async () => {
      const dir = tempDir('plangate-host-rules-');
      const rules = join(dir, 'rules');
      mkdirSync(rules);
      copyFileSync(join(HOSTS_DIR, `${host}.yaml`), join(rules, `${host}.yaml`));
      const checked = await cli(['check', rules]);
      expect(checked.status, checked.out + checked.err).toBe(0);
      expect(checked.err).not.toMatch(/warning/i);

      writeFileSync(join(rules, 'plan.yaml'), 'planRequired:\n  workspace: { mode: side_effects }\n');
      const pg = await openPlangate({ rules, store: ':memory:', audit: join(dir, 'audit.jsonl'), log: () => {} });
      opened.push(pg);
      for (const tool of TOOLS[host].read) {
        const d = await pg.gate.decide({ agent: '0xDEV', tool, args: {} });
        expect(d.allowed, `${host} ${tool}: ${d.code ?? ''}`).toBe(true);
      }
      for (const tool of TOOLS[host].effect) {
        const d = await pg.gate.decide({ agent: '0xDEV', tool, args: {} });
        expect(d.allowed, `${host} ${tool}`).toBe(false);
        expect(d.code).toBe(`plan_required:${tool}:none`);
      }
      // A tool the file does not list is an effect (the default): the file widens nothing else.
      expect((await pg.gate.decide({ agent: '0xDEV', tool: 'some_other_tool', args: {} })).allowed).toBe(false);
    }, 60_000);
  }
});
