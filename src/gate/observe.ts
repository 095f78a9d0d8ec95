/**
 * A watcher of decisions as they are made, for telemetry (traces): told
 * when a decision begins, each step it takes, and how it ended. The gate
 * decides the same with or without one, and costs nothing extra without one.
 */
import type { Call, Decision } from '../core/types.js';

/** The steps of one decision a watcher is told about. */
export type DecisionStep = 'facts' | 'evaluate';

export interface DecisionObserver {
  /** Called as a decision begins, in the caller's context; the watch it returns follows that decision. */
  begin(call: Call): DecisionWatch;
}

export interface DecisionWatch {
  /** The trace this decision is recorded in, when it is recorded (its refusal's audit event names it). */
  readonly traceId?: string;
  /** Runs one step of the decision (synchronous or not) and returns what it returns. */
  step<T>(name: DecisionStep, run: () => T): T;
  /**
   * The decision's end: the decision, with the crews of the acting seat when
   * the facts were read; or the error it ended with.
   */
  end(outcome: { decision: Decision; crews?: readonly string[] } | { error: unknown }): void;
}
