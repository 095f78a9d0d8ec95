/**
 * Prometheus metrics (prom-client), in a registry of the app's own, never
 * the global one: decisions by outcome and class, decision latency, HTTP
 * requests, and from the runtime status the reloads, reload errors and
 * whether plangate is failing open.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Decision } from '../../core/types.js';
import type { CallOutcome } from '../../gate/tool-call.js';
import type { RuntimeStatus } from '../../main/status.js';
import { shareRegistry } from '../../main/telemetry/state.js';

/** How a decision came out, as a metric label. */
export type Outcome = 'allowed' | 'refused' | 'fail_open';

export interface Metrics {
  readonly registry: Registry;
  /** Counts one decision and its latency. */
  observeDecision(decision: Decision, seconds: number): void;
  /** Counts a decision that failed with an error (by error code). */
  observeDecisionError(code: string, seconds: number): void;
  /** Counts one HTTP answer by route pattern (never the raw path), method and status. */
  observeRequest(route: string, method: string, status: number): void;
  /** Counts one tool call through the tool-call pipeline by its door (`/mcp/call`, `hook:<host>`) and how it ended. */
  observeToolCall(door: string, outcome: CallOutcome): void;
  /** The exposition text and its content type. */
  render(): Promise<{ text: string; contentType: string }>;
}

export interface MetricsOptions {
  /** Read at every scrape for the reload and fail-open metrics. */
  status?: () => RuntimeStatus;
  /** Also collect the process metrics (CPU, memory, event loop lag). Default true. */
  processMetrics?: boolean;
}

/** Seconds: 50 µs … 2.5 s. */
const LATENCY_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The outcome label of a decision. */
export function outcomeOf(decision: Decision): Outcome {
  if (decision.failOpen) return 'fail_open';
  return decision.allowed ? 'allowed' : 'refused';
}

/**
 * Creates the metrics of one app.
 *
 * @example
 * const metrics = createMetrics({ status: () => pg.status() });
 * metrics.observeDecision(decision, 0.0004);
 * (await metrics.render()).text // 'plangate_decisions_total{outcome="allowed",class="effect"} 1 …'
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  // Also over OTLP, with the same names and labels, while telemetry runs.
  shareRegistry(registry);
  const status = options.status;
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'plangate_' });

  const decisions = new Counter({
    name: 'plangate_decisions_total',
    help: 'Decisions by outcome (allowed, refused, fail_open) and tool class.',
    labelNames: ['outcome', 'class'] as const,
    registers: [registry],
  });
  const decisionErrors = new Counter({
    name: 'plangate_decision_errors_total',
    help: 'Decisions that failed with an error instead of a decision, by error code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'plangate_decision_duration_seconds',
    help: 'Time to decide one call: fact gathering, policy evaluation and the audit of a refusal.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const requests = new Counter({
    name: 'plangate_http_requests_total',
    help: 'HTTP answers by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  new Counter({
    name: 'plangate_rules_reloads_total',
    help: 'Successful rule reloads since start.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(status?.().reloads ?? 0);
    },
  });
  new Counter({
    name: 'plangate_rules_reload_errors_total',
    help: 'Failed rule reloads since start (the last good rules stay in force).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(status?.().reloadErrors ?? 0);
    },
  });
  new Gauge({
    name: 'plangate_fail_open',
    help: '1 while plangate fails open: the rules or the policy could not be loaded, or calls failed open on a store outage in the last minute, and calls go through as if the mode were off.',
    registers: [registry],
    collect() {
      const s = status?.();
      this.set(s?.failOpen || s?.storeFailingOpen ? 1 : 0);
    },
  });
  new Gauge({
    name: 'plangate_audit_failed',
    help: '1 while the audit sink cannot write (it reopens by itself).',
    registers: [registry],
    collect() {
      const audit = status?.().audit;
      this.set(audit && !audit.ok ? 1 : 0);
    },
  });
  new Counter({
    name: 'plangate_audit_failures_total',
    help: 'Failed audit writes and syncs since start.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(status?.().audit?.failures ?? 0);
    },
  });
  new Gauge({
    name: 'plangate_clock_skew_seconds',
    help: "With a PostgreSQL store: how far the database's clock is ahead of this process's (negative: behind), at the last measure.",
    registers: [registry],
    collect() {
      const clock = status?.().clock;
      if (clock) this.set(clock.skewMs / 1000);
    },
  });
  new Gauge({
    name: 'plangate_degraded',
    help: "1 while /health says degraded (failing open, the last reload failed, the audit sink is failed, or the clock is off the database's).",
    registers: [registry],
    collect() {
      this.set(status?.().state === 'degraded' ? 1 : 0);
    },
  });

  const toolCalls = new Counter({
    name: 'plangate_tool_calls_total',
    help: 'Tool calls through POST /mcp/call and POST /v1/hooks/:host, by door (/mcp/call, hook:<host>) and outcome (allowed, refused, fail_open, own).',
    labelNames: ['door', 'outcome'] as const,
    registers: [registry],
  });

  return {
    registry,
    observeDecision(decision, seconds) {
      decisions.inc({ outcome: outcomeOf(decision), class: decision.class });
      latency.observe(seconds);
    },
    observeDecisionError(code, seconds) {
      decisionErrors.inc({ code });
      latency.observe(seconds);
    },
    observeRequest(route, method, statusCode) {
      requests.inc({ route, method, status: String(statusCode) });
    },
    observeToolCall(door, outcome) {
      toolCalls.inc({ door, outcome });
    },
    async render() {
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
