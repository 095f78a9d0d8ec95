/**
 * Whose failure a store error is, when it happens while gathering the facts
 * of one decision (DESIGN.md, "Failing open").
 *
 * Plan-required fails open when the store fails, so that a database outage
 * does not stop every agent. That promise is for accidents. A query that
 * times out on rows its caller chose to write, or a decision whose fact
 * gathering outlasts its budget, is not an accident of the store: if it
 * failed open, an agent could switch the gate off for itself by making its
 * own lookups slow. So a failure counts as an outage only when the store is
 * also failing for everyone — a health probe, one trivial query on a
 * connection of its own, fails too. Otherwise it is that request's failure:
 * the call is refused with `store_failure`, audited (`StoreFailureRefused`),
 * and never let through. Holds fail closed either way (core/failclosed.ts).
 */

/** The rule, as a constant: a fact-gathering failure is an outage only when a health probe of the store fails too. */
export const STORE_FAILURE_IS_AN_OUTAGE = 'only_when_the_store_fails_a_probe' as const;

/**
 * The longest a decision's fact gathering may take (ms). Every lookup is an
 * index seek under a limit, a few milliseconds at most; this bounds the wait
 * well under the PostgreSQL store's statement timeout (2000 ms), so that a
 * slow request is refused as its own failure before the store's timeout
 * could pass for an outage.
 */
export const DECISION_FACTS_BUDGET_MS = 500;

/**
 * How long a probe's answer is reused (ms): during an outage every call
 * fails, and one probe answers for all of them; a healthy answer is reused
 * as briefly, so that an outage starting just after it is seen at once.
 */
export const PROBE_REUSE_MS = 500;

/** The longest a probe may take before it counts as failed (ms). */
export const PROBE_TIMEOUT_MS = 1000;
