/**
 * Each host contract against the real gate (the compiled policy through
 * opa-wasm, a real store), with the host's own classification file and a
 * side_effects rule: the recorded write and shell payloads are refused in
 * the host's blocking shape with the instruction as the reason; the read is
 * allowed and left to the host; after the seat posts a plan, the write is
 * left to the host too. (The tool-call pipeline that joins these steps in
 * `plangate hook --format` is tested with it; this checks that what each
 * contract reads is what the gate decides on.)
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HookReply, HostContract } from '../../src/adapters/hook/contract.js';
import { HOSTS } from '../../src/adapters/hook/hosts/index.js';
import { argsForPolicy } from '../../src/gate/args.js';
import { openPlangate, type Plangate } from '../../src/main/open.js';
import { tempDir } from '../cli/run.js';

const PAYLOADS = resolve(import.meta.dirname, 'payloads');
const EXAMPLES = resolve(import.meta.dirname, '..', '..', 'examples', 'hosts');

function payload(host: string, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PAYLOADS, host, `${name}.json`), 'utf8')) as Record<string, unknown>;
}

/** The reply for one payload: read, decided by the gate, answered in the host's shape. */
async function answer(pg: Plangate, contract: HostContract, doc: Record<string, unknown>, agent: string): Promise<{ reply: HookReply; code?: string }> {
  const call = contract.read(doc);
  const decision = await pg.gate.decide({ agent, tool: call.tool, args: argsForPolicy(call.input).args });
  if (!decision.allowed) return { reply: contract.refuse(decision.message ?? decision.code ?? 'refused', doc), ...(decision.code ? { code: decision.code } : {}) };
  return { reply: contract.allow('plangate: no check refuses this call', false, doc) };
}

/** Whether a reply blocks the call in that host, as its contract module documents. */
function blocks(host: string, r: HookReply): boolean {
  const out = r.stdout.trim() === '' ? {} : (JSON.parse(r.stdout) as Record<string, any>);
  switch (host) {
    case 'codex': return r.exitCode === 2 || out.hookSpecificOutput?.permissionDecision === 'deny';
    case 'gemini-cli': return out.decision === 'deny' || (r.stdout.trim() === '' && r.exitCode === 2);
    case 'cursor': return out.permission === 'deny' || r.exitCode === 2;
    case 'copilot': return out.permissionDecision === 'deny';
    case 'windsurf': return r.exitCode === 2;
    case 'cline': return out.cancel === true;
    default: throw new Error(host);
  }
}

describe('host contracts with the real gate', () => {
  const opened: Plangate[] = [];
  afterAll(async () => {
    for (const pg of opened) await pg.close();
  });

  for (const host of ['codex', 'gemini-cli', 'cursor', 'copilot', 'windsurf', 'cline'] as const) {
    const contract = HOSTS[host]!;
    it(`${host}: write and shell refused in its blocking shape, the read left to the host; after a plan, the write too`, async () => {
      const dir = tempDir('plangate-hosts-gate-');
      const rules = join(dir, 'rules');
      mkdirSync(rules);
      copyFileSync(join(EXAMPLES, `${host}.yaml`), join(rules, `${host}.yaml`));
      writeFileSync(join(rules, 'plan.yaml'), 'planRequired:\n  workspace: { mode: side_effects }\n');
      const pg = await openPlangate({ rules, store: join(dir, 'store.db'), audit: join(dir, 'audit.jsonl'), log: () => {} });
      opened.push(pg);
      const agent = '0xDEV';

      for (const name of ['write', 'shell']) {
        const { reply, code } = await answer(pg, contract, payload(host, name), agent);
        expect(code, `${host}/${name}`).toMatch(/^plan_required:.+:none$/);
        expect(blocks(host, reply), `${host}/${name}: ${JSON.stringify(reply)}`).toBe(true);
        expect(`${reply.stdout}${reply.stderr}`).toContain(code!);
      }
      if (host !== 'codex') {
        // Codex's hooks never see a read of its own; its read payload is an MCP server's tool, unclassified.
        const read = await answer(pg, contract, payload(host, 'read'), agent);
        expect(read.code, `${host}/read`).toBeUndefined();
        expect(blocks(host, read.reply)).toBe(false);
      }

      await pg.gate.say({ thread: `agent:${agent}`, author: agent, authorKind: 'agent', kind: 'plan', body: 'write the release summary, then push it' });
      const after = await answer(pg, contract, payload(host, 'write'), agent);
      expect(after.code, `${host}/write after a plan`).toBeUndefined();
      expect(blocks(host, after.reply)).toBe(false);
      expect(after.reply.exitCode).toBe(0);
    }, 60_000);
  }
});
