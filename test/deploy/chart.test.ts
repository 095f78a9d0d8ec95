/**
 * The deployment files: the Helm chart lints and renders to the objects a
 * cluster runs (image, command, probes, read-only mounts, the
 * PodDisruptionBudget), the Dockerfile runs the same command, and that
 * command, run directly with the chart's variables and mounts, serves.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRules } from '../../src/rules/load.js';
import { tempDir } from '../cli/run.js';
import { freshSchemaUrl, havePostgres } from '../support/postgres.js';
import { findHelm } from '../support/helm.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'plangate');
const helm = findHelm('the Helm chart tests (lint, render, the rendered command serving)');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function run(args: string[]) {
  return spawnSync(helm!, args, { encoding: 'utf8' });
}

function render(...set: string[]): Obj[] {
  const r = run(['template', 'rel', CHART, ...set.flatMap((s) => ['--set', s])]);
  expect(r.status, r.stderr).toBe(0);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj).filter((o) => o);
}

function kind(objs: Obj[], k: string): Obj {
  const found = objs.filter((o) => o['kind'] === k);
  expect(found, k).toHaveLength(1);
  return found[0]!;
}

/** The Dockerfile's final stage: its ENV, USER, ENTRYPOINT + CMD and whether it has a HEALTHCHECK. */
function dockerfile() {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages = text.split(/^FROM /m);
  const last = stages[stages.length - 1]!;
  const json = (directive: string) => JSON.parse(new RegExp(`^${directive} (\\[.*\\])$`, 'm').exec(last)?.[1] ?? 'null') as string[] | null;
  const env: Record<string, string> = {};
  for (const m of last.matchAll(/^ENV (.*)$/gm)) {
    for (const pair of m[1]!.trim().split(/\s+/)) {
      const [k, v] = pair.split('=');
      env[k!] = v!;
    }
  }
  return {
    stages: stages.length - 1,
    user: /^USER (\S+)$/m.exec(last)?.[1],
    command: [...(json('ENTRYPOINT') ?? []), ...(json('CMD') ?? [])],
    healthcheck: /^HEALTHCHECK /m.test(last),
    env,
  };
}

describe.runIf(helm)('the Helm chart', () => {
  it('passes helm lint --strict', () => {
    const r = run(['lint', '--strict', CHART]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('renders replicas on PostgreSQL with the rules read-only from a ConfigMap, probes on /health and a PodDisruptionBudget', () => {
    const objs = render();
    const deploy = kind(objs, 'Deployment');
    const pod = deploy['spec']['template'];
    const c = pod['spec']['containers'][0];
    expect(deploy['spec']['replicas']).toBeGreaterThanOrEqual(2);
    expect(c['image']).toBe(`plangate:${VERSION}`);
    expect([...c['command'], ...c['args']]).toEqual(['node', '/app/bin/plangate.js', 'serve']);
    // The probes name a Host plangate answers to (it refuses any other: DNS rebinding).
    for (const probe of [c['readinessProbe'], c['livenessProbe']]) expect(probe['httpGet']).toEqual({ path: '/health', port: 'http', httpHeaders: [{ name: 'Host', value: 'localhost' }] });
    expect(pod['spec']['securityContext']['runAsNonRoot']).toBe(true);
    expect(c['securityContext']['readOnlyRootFilesystem']).toBe(true);

    const env = Object.fromEntries((c['env'] as Obj[]).map((e) => [e['name'], e['value'] ?? e['valueFrom']]));
    expect(env['PLANGATE_STORE']).toEqual({ secretKeyRef: { name: 'plangate-store', key: 'url' } });
    expect(String(env['PLANGATE_ALLOWED_HOSTS']).split(',')).toEqual(expect.arrayContaining(['localhost', '127.0.0.1']));
    const mounts = Object.fromEntries((c['volumeMounts'] as Obj[]).map((m) => [m['name'], m]));
    expect(mounts['rules']).toMatchObject({ mountPath: env['PLANGATE_RULES'], readOnly: true });
    expect(env['PLANGATE_TOKENS_FILE']).toBe(`${mounts['tokens']['mountPath']}/tokens.json`);
    expect(mounts['tokens']['readOnly']).toBe(true);

    const cm = kind(objs, 'ConfigMap');
    const volumes = Object.fromEntries((pod['spec']['volumes'] as Obj[]).map((v) => [v['name'], v]));
    expect(volumes['rules']['configMap']['name']).toBe(cm['metadata']['name']);

    const pdb = kind(objs, 'PodDisruptionBudget');
    expect(pdb['spec']['minAvailable']).toBe(1);
    expect(pdb['spec']['selector']['matchLabels']).toEqual(deploy['spec']['selector']['matchLabels']);
    expect(pod['metadata']['labels']).toMatchObject(pdb['spec']['selector']['matchLabels']);
    const svc = kind(objs, 'Service');
    expect(svc['spec']['selector']).toEqual(deploy['spec']['selector']['matchLabels']);
    expect(svc['spec']['ports'][0]['targetPort']).toBe('http');
  });

  it("the chart's default rules are valid plangate rules", () => {
    const cm = kind(render(), 'ConfigMap');
    const sources = Object.entries(cm['data'] as Record<string, string>).map(([file, text]) => ({ file, text }));
    const checked = checkRules(sources);
    expect(checked.problems, JSON.stringify(checked.problems)).toEqual([]);
  });

  it('uses an existing ConfigMap for the rules when named, and refuses to render without the store secret', () => {
    const objs = render('rules.existingConfigMap=team-rules');
    expect(objs.filter((o) => o['kind'] === 'ConfigMap')).toHaveLength(0);
    const volumes = kind(objs, 'Deployment')['spec']['template']['spec']['volumes'] as Obj[];
    expect(volumes.find((v) => v['name'] === 'rules')?.['configMap']['name']).toBe('team-rules');
    const r = run(['template', 'rel', CHART, '--set', 'store.existingSecret=']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('store.existingSecret is required');
  });

  it('the Dockerfile runs the same command as an unprivileged user from a multi-stage build, with a health check', () => {
    const d = dockerfile();
    const c = kind(render(), 'Deployment')['spec']['template']['spec']['containers'][0];
    expect(d.stages).toBeGreaterThanOrEqual(2);
    expect(d.user).toBe('node');
    expect(d.healthcheck).toBe(true);
    expect(d.command).toEqual([...c['command'], ...c['args']]);
    expect(d.env['PLANGATE_RULES']).toBe('/etc/plangate/rules');
  });
});

describe.runIf(helm && havePostgres('the rendered container command serving on PostgreSQL'))('the rendered command, run directly', () => {
  const children: ReturnType<typeof spawn>[] = [];
  const drops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    for (const drop of drops) await drop();
  });

  it('serves with the chart\'s variables and mounts: healthy, and a decision by the rules from the ConfigMap', async () => {
    const objs = render();
    const c = kind(objs, 'Deployment')['spec']['template']['spec']['containers'][0];
    const root = tempDir('plangate-chart-run-');
    // Each mount path of the container becomes a directory of this test's.
    const at = (p: string) => join(root, p);
    for (const [name, text] of Object.entries(kind(objs, 'ConfigMap')['data'] as Record<string, string>)) {
      mkdirSync(at('/etc/plangate/rules'), { recursive: true });
      writeFileSync(join(at('/etc/plangate/rules'), name), text);
    }
    const token = 'agent-token-for-the-chart-test-0001';
    const env: Record<string, string> = {};
    for (const e of c['env'] as Obj[]) if (typeof e['value'] === 'string') env[e['name']] = e['value'];
    mkdirSync(at('/etc/plangate/tokens'), { recursive: true });
    writeFileSync(at(env['PLANGATE_TOKENS_FILE']!), JSON.stringify({ tokens: [{ role: 'agent', seat: '0xWORKER', token }] }));
    const db = await freshSchemaUrl('chart');
    drops.push(db.drop);
    const port = await freePort();
    mkdirSync(at('/var/lib/plangate'), { recursive: true });
    const [cmd, script, ...args] = [...c['command'], ...c['args']] as string[];
    const child = spawn(cmd === 'node' ? process.execPath : cmd!, [script!.replace(/^\/app\//, `${ROOT}/`), ...args], {
      cwd: at('/var/lib/plangate'),
      env: {
        PATH: process.env['PATH'] ?? '',
        ...env,
        PLANGATE_RULES: at(env['PLANGATE_RULES']!),
        PLANGATE_TOKENS_FILE: at(env['PLANGATE_TOKENS_FILE']!),
        PLANGATE_STORE: db.url,
        PLANGATE_PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (b) => { output += String(b); });
    child.stderr!.on('data', (b) => { output += String(b); });
    const base = `http://127.0.0.1:${port}`;
    const health = await until(async () => (await fetch(`${base}/health`)).json() as Promise<{ status: string }>, () => output);
    expect(health.status).toBe('ok');
    const res = await fetch(`${base}/v1/decide`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'github.merge_pull_request' }),
    });
    const decision = await res.json() as { allowed: boolean; code?: string };
    expect(res.status).toBe(200);
    // The chart's default rules gate every side effect: no plan, refused.
    expect(decision).toMatchObject({ allowed: false, code: 'plan_required:github.merge_pull_request:none' });
  }, 60_000);
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function until<T>(probe: () => Promise<T>, log: () => string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > end) throw new Error(`the service did not answer in ${ms} ms: ${String(error)}\n${log()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
