/**
 * The MCP gateway: plangate in front of one or more upstream MCP servers.
 * It opens one session per client (stdio: one; Streamable HTTP: one per MCP
 * session), each with its own upstream connections, and reports health and
 * metrics across them.
 */
import { Counter, Gauge } from 'prom-client';
import { threadsToFetch } from '../../core/threads.js';
import type { Gate } from '../../gate/gate.js';
import { reviewerChannels } from '../../main/channel.js';
import type { Plangate } from '../../main/open.js';
import { createMetrics, type Metrics } from '../http/metrics.js';
import type { CallOutcome } from './calls.js';
import { readRootsOf } from './config.js';
import { checkUpstreamName } from './names.js';
import { MIN_UPSTREAM_MESSAGE_BYTES } from './message-bound.js';
import { GatewaySession } from './session.js';
import type { Backoff, UpstreamSpec } from './upstream.js';

export interface GatewayOptions {
  /** The decision point; its store and engine give the seat's threads and reviewer channel. */
  plangate: Pick<Plangate, 'store' | 'engine' | 'status'> & { gate: Pick<Gate, 'decide' | 'sayAsAgent' | 'holds' | 'approvals'> };
  upstreams: readonly UpstreamSpec[];
  reconnect?: Backoff;
  /** How long a forwarded request may go without an answer or progress (ms). */
  timeoutMs?: number;
  /** How long the person at a client has to answer an approval form (ms; default CLIENT_APPROVAL_TIMEOUT_MS). */
  clientApprovalTimeoutMs?: number;
  /** Also collect process metrics (default true). */
  processMetrics?: boolean;
  /**
   * Where the read guard looks for a call's files. `upstream` (the default):
   * in the directories the called tool's stdio upstream was started with,
   * where a filesystem server reads and resolves relative paths, when it has
   * any; else in the gate's read roots. `gate`: always in the gate's (the
   * operator named them, e.g. with `--read-root`).
   */
  readRoots?: 'upstream' | 'gate';
  /** The most requests one session (but pings) may have in flight at once (default MAX_CALLS_IN_FLIGHT, 64). */
  maxCallsPerSession?: number;
  /**
   * Most bytes of one message from an upstream (default MAX_UPSTREAM_MESSAGE_BYTES, 10 MiB). An
   * upstream that sends a larger one is taken as failed: its link reconnects, and the requests in
   * flight on it are told why.
   */
  maxUpstreamMessageBytes?: number;
  /** The operator's log: what a client is not shown (a store error's own message). Default: a line on stderr. */
  log?: (line: string) => void;
}

/** One upstream's state across the open sessions. */
export interface UpstreamHealth {
  name: string;
  transport: 'stdio' | 'http';
  target: string;
  /** `up` when every session's link is up, `down` when any is down, `idle` with no session open. */
  state: 'up' | 'down' | 'connecting' | 'idle';
  up: number;
  down: number;
  restarts: number;
  tools: number;
  lastError?: string;
}

export interface GatewayHealth {
  status: 'ok' | 'degraded';
  reasons: string[];
  sessions: number;
  upstreams: UpstreamHealth[];
  enforcing: boolean;
  /**
   * Pinned tools refused because their definition changed (`tool_changed`),
   * from the first refused call until a call of the tool passes its pin
   * again (the operator pinned it anew).
   */
  changedTools: Array<{ tool: string; upstream: string; upstreamTool: string; since: string }>;
}

export interface McpGateway {
  /** A new session for one client, acting as `seat`. Connect it to a transport. */
  open(session: { seat: string; runId?: string }): GatewaySession;
  readonly sessions: ReadonlySet<GatewaySession>;
  health(): GatewayHealth;
  metrics: Metrics;
  close(): Promise<void>;
}

/**
 * Creates a gateway over upstreams.
 *
 * @example
 * const gw = createMcpGateway({ plangate: pg, upstreams: [{ name: 'fs', kind: 'stdio', command: 'mcp-server-filesystem', args: [dir] }] });
 * await gw.open({ seat: '0xWORKER' }).connect(new StdioServerTransport());
 */
export function createMcpGateway(options: GatewayOptions): McpGateway {
  const names = new Set<string>();
  for (const u of options.upstreams) {
    checkUpstreamName(u.name);
    if (names.has(u.name)) throw new Error(`upstream name "${u.name}" is used twice`);
    names.add(u.name);
  }
  wholeNumber('maxCallsPerSession', options.maxCallsPerSession, 1);
  wholeNumber('maxUpstreamMessageBytes', options.maxUpstreamMessageBytes, MIN_UPSTREAM_MESSAGE_BYTES);
  // Each stdio upstream's own directories: a call to its tools is read-guarded where it reads. A
  // Streamable HTTP upstream reads files this host cannot see: none of its paths is vouched for
  // (its whole-file reads are refused as outside the roots), unless the operator names the roots.
  const upstreamRoots = new Map<string, readonly string[]>();
  for (const u of options.upstreams) {
    const roots = u.kind === 'http' ? [] : readRootsOf([u]);
    // A stdio upstream with no directories of its own is checked in the gate's.
    if (u.kind === 'http' || roots.length > 0) upstreamRoots.set(u.name, roots);
  }
  const pg = options.plangate;
  const sessions = new Set<GatewaySession>();
  const metrics = createMetrics({ status: () => pg.status(), processMetrics: options.processMetrics ?? true });
  const calls = new Counter({
    name: 'plangate_mcp_tool_calls_total',
    help: 'MCP tool calls by exposed tool name and outcome (allowed, refused, fail_open, upstream_down, own).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [metrics.registry],
  });
  new Gauge({
    name: 'plangate_mcp_upstream_up',
    help: '1 when every open session reaches the upstream, 0 when one does not.',
    labelNames: ['upstream'] as const,
    registers: [metrics.registry],
    collect() {
      for (const u of health().upstreams) this.set({ upstream: u.name }, u.state === 'down' ? 0 : 1);
    },
  });
  new Gauge({
    name: 'plangate_mcp_sessions',
    help: 'Open MCP client sessions.',
    registers: [metrics.registry],
    collect() {
      this.set(sessions.size);
    },
  });

  const changed = new Map<string, { tool: string; upstream: string; upstreamTool: string; since: string }>();
  const deps = {
    gate: pg.gate,
    approvals: pg.gate.approvals,
    ...(options.clientApprovalTimeoutMs !== undefined ? { clientApprovalTimeoutMs: options.clientApprovalTimeoutMs } : {}),
    pinState(tool: string, upstream: string, upstreamTool: string, isChanged: boolean) {
      if (!isChanged) changed.delete(tool);
      else if (!changed.has(tool)) changed.set(tool, { tool, upstream, upstreamTool, since: new Date().toISOString() });
    },
    async threadsFor(agent: string) {
      return threadsToFetch(await pg.store.lineage(agent));
    },
    channelFor: reviewerChannels(pg),
    count(tool: string, outcome: CallOutcome) {
      calls.inc({ tool, outcome });
    },
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxCallsPerSession !== undefined ? { maxCallsInFlight: options.maxCallsPerSession } : {}),
    log: options.log ?? ((line: string) => void process.stderr.write(`${line}\n`)),
    ...(options.readRoots === 'gate' ? {} : { rootsOf: (upstream: string) => upstreamRoots.get(upstream) }),
  };

  function health(): GatewayHealth {
    const upstreams = options.upstreams.map((spec): UpstreamHealth => {
      const links = [...sessions].flatMap((s) => s.links.filter((l) => l.spec.name === spec.name));
      const up = links.filter((l) => l.state === 'up').length;
      const down = links.filter((l) => l.state === 'down').length;
      // A down link says why; else the link that failed last (one session's upstream answered an error, say).
      const last = links.find((l) => l.state === 'down') ?? links.reduce<typeof links[number] | undefined>((a, l) => (!a || l.lastErrorAt > a.lastErrorAt ? l : a), undefined);
      return {
        name: spec.name,
        transport: spec.kind,
        target: spec.kind === 'stdio' ? [spec.command, ...spec.args].join(' ') : spec.url,
        state: links.length === 0 ? 'idle' : down > 0 ? 'down' : up === links.length ? 'up' : 'connecting',
        up,
        down,
        restarts: links.reduce((n, l) => n + l.restarts, 0),
        tools: last?.tools.length ?? 0,
        ...(last?.lastError !== undefined ? { lastError: last.lastError } : {}),
      };
    });
    const status = pg.status();
    const reasons = [
      ...upstreams.filter((u) => u.state === 'down').map((u) => `upstream ${u.name} is down: ${u.lastError ?? 'unknown'}`),
      ...(status.enforcing ? [] : [`plan-required is NOT enforced: ${status.failOpen?.reason ?? 'failing open'}`]),
      ...(status.lastReloadError ? [`the last reload failed: ${status.lastReloadError.message}`] : []),
    ];
    return { status: reasons.length ? 'degraded' : 'ok', reasons, sessions: sessions.size, upstreams, enforcing: status.enforcing, changedTools: [...changed.values()] };
  }

  return {
    sessions,
    metrics,
    health,
    open({ seat, runId }) {
      const session: GatewaySession = new GatewaySession({
        seat,
        ...(runId !== undefined ? { runId } : {}),
        upstreams: options.upstreams,
        deps,
        ...(options.reconnect ? { reconnect: options.reconnect } : {}),
        ...(options.maxUpstreamMessageBytes !== undefined ? { maxUpstreamMessageBytes: options.maxUpstreamMessageBytes } : {}),
      });
      sessions.add(session);
      const close = session.server.onclose;
      session.server.onclose = () => {
        close?.();
        sessions.delete(session);
        void session.close();
      };
      return session;
    },
    async close() {
      await Promise.all([...sessions].map((s) => s.close()));
      sessions.clear();
    },
  };
}

/** Throws unless an option is left out or a whole number of at least `min`. */
export function wholeNumber(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
    throw new Error(`${name} must be a whole number of at least ${min}, not ${value}`);
  }
}
