/**
 * Validation and small helpers shared by every store driver, so that the
 * drivers agree on what is accepted and on how results are ordered.
 */
import { checkText } from '../core/json.js';
import { ErrorCode, PlangateError } from '../core/errors.js';
import { isValidId, parseThread } from '../core/threads.js';
import type { MessageFact, NewMessage, StoredMessage } from '../core/types.js';
import type { Agent, CandidateQuery, Crew, DecisionFactsQuery } from './port.js';

/** Longest author name and run id, in characters. */
export const MAX_AUTHOR_LENGTH = 128;
export const MAX_RUN_ID_LENGTH = 128;
/** Largest message body, in UTF-8 bytes (64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Message kinds: a lowercase word, e.g. `plan`, `note`, `status-update`. */
export const KIND_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
/** Deepest crew nesting: a lineage has at most this many crews. */
export const MAX_CREW_DEPTH = 64;
/** Largest `context.perThread` a candidate query may ask for. */
export const MAX_CONTEXT_PER_THREAD = 1000;

function invalid(message: string): PlangateError {
  return new PlangateError(ErrorCode.InvalidInput, message);
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Checks a crew and normalizes a missing parent to null.
 *
 * @example
 * checkCrew({ id: 'desk', parent: null }) // { id: 'desk', parent: null }
 */
export function checkCrew(crew: Crew): Crew {
  if (!isObject(crew)) throw invalid('crew must be an object');
  if (!isValidId(crew.id)) throw invalid(`crew.id is not a valid id: ${JSON.stringify(crew.id)}`);
  const parent = crew.parent ?? null;
  if (parent !== null && !isValidId(parent)) {
    throw invalid(`crew.parent is not a valid id: ${JSON.stringify(parent)}`);
  }
  if (parent === crew.id) {
    throw new PlangateError(ErrorCode.Conflict, `crew ${crew.id} cannot be its own parent`);
  }
  return { id: crew.id, parent };
}

/** Checks an agent. */
export function checkAgent(agent: Agent): Agent {
  if (!isObject(agent)) throw invalid('agent must be an object');
  if (!isValidId(agent.id)) throw invalid(`agent.id is not a valid id: ${JSON.stringify(agent.id)}`);
  if (!isValidId(agent.crew)) throw invalid(`agent.crew is not a valid id: ${JSON.stringify(agent.crew)}`);
  return { id: agent.id, crew: agent.crew };
}

/**
 * Fails with `conflict` when re-parenting crew `id` under a parent whose
 * ancestor chain is `parentChain` (the parent first) would make a cycle or
 * nest some crew deeper than {@link MAX_CREW_DEPTH}. `subtreeHeight` is how
 * many levels of crews hang below `id` today (0 for none).
 */
export function checkCrewPlacement(id: string, parentChain: string[], subtreeHeight: number): void {
  if (parentChain.includes(id)) {
    throw new PlangateError(
      ErrorCode.Conflict,
      `crew ${id} cannot be placed under ${parentChain[0]}: ${id} is one of its ancestors (cycle)`,
    );
  }
  const deepest = parentChain.length + 1 + subtreeHeight;
  if (deepest > MAX_CREW_DEPTH) {
    throw new PlangateError(
      ErrorCode.Conflict,
      `crew ${id} cannot be placed there: crews would nest ${deepest} deep, more than ${MAX_CREW_DEPTH}`,
    );
  }
}

/**
 * Checks a message to be posted and returns a clean copy with `at` filled in
 * (`Date.now()` when absent). Fails with `invalid_input` naming the field.
 */
export function checkNewMessage(message: NewMessage, now: () => number = Date.now): NewMessage & { at: number } {
  if (!isObject(message)) throw invalid('message must be an object');
  const { thread, author, authorKind, kind, body, at, runId } = message;
  if (typeof thread !== 'string' || parseThread(thread) === undefined) {
    throw invalid(`message.thread must be "org", "agent:<id>" or "crew:<id>", got ${JSON.stringify(thread)}`);
  }
  if (typeof author !== 'string' || author.length === 0 || author.length > MAX_AUTHOR_LENGTH) {
    throw invalid(`message.author must be a non-empty string of at most ${MAX_AUTHOR_LENGTH} characters`);
  }
  if (authorKind !== 'agent' && authorKind !== 'human') {
    throw invalid(`message.authorKind must be "agent" or "human", got ${JSON.stringify(authorKind)}`);
  }
  if (typeof kind !== 'string' || !KIND_PATTERN.test(kind)) {
    throw invalid(`message.kind must match ${KIND_PATTERN.source}, got ${JSON.stringify(kind)}`);
  }
  if (typeof body !== 'string') throw invalid('message.body must be a string');
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > MAX_BODY_BYTES) {
    throw invalid(`message.body is ${bytes} bytes, more than ${MAX_BODY_BYTES}`);
  }
  if (at !== undefined && !Number.isSafeInteger(at)) {
    throw invalid(`message.at must be an integer number of epoch milliseconds, got ${String(at)}`);
  }
  if (
    runId !== undefined &&
    (typeof runId !== 'string' || runId.length === 0 || runId.length > MAX_RUN_ID_LENGTH)
  ) {
    throw invalid(`message.runId must be a non-empty string of at most ${MAX_RUN_ID_LENGTH} characters`);
  }
  // Stored text is kept as sent or refused, never silently altered (a lone surrogate cannot be stored as UTF-8).
  checkText(author, 'message.author');
  checkText(body, 'message.body');
  checkText(runId, 'message.runId');
  const clean: NewMessage & { at: number } = { thread, author, authorKind, kind, body, at: at ?? now() };
  if (runId !== undefined) clean.runId = runId;
  return clean;
}

/** Checks a candidate query's shape; the lookups themselves never fail on unknown names. */
export function checkCandidateQuery(q: CandidateQuery): void {
  if (!isObject(q)) throw invalid('query must be an object');
  if (typeof q.now !== 'number' || !Number.isFinite(q.now)) throw invalid('query.now must be a finite number');
  if (q.runId !== undefined && typeof q.runId !== 'string') throw invalid('query.runId must be a string');
  if (!Array.isArray(q.plansBy)) throw invalid('query.plansBy must be an array');
  for (const [i, p] of q.plansBy.entries()) {
    if (!isObject(p) || typeof p.author !== 'string' || !Array.isArray(p.threads)) {
      throw invalid(`query.plansBy[${i}] must be { author: string, threads: string[] }`);
    }
    if (!p.threads.every((t) => typeof t === 'string')) {
      throw invalid(`query.plansBy[${i}].threads must be strings`);
    }
  }
  if (q.context !== undefined) {
    const c = q.context;
    if (!isObject(c) || typeof c.author !== 'string' || !Array.isArray(c.threads)) {
      throw invalid('query.context must be { threads: string[], author: string, perThread: number }');
    }
    if (!c.threads.every((t) => typeof t === 'string')) throw invalid('query.context.threads must be strings');
    if (!Number.isSafeInteger(c.perThread) || c.perThread < 0 || c.perThread > MAX_CONTEXT_PER_THREAD) {
      throw invalid(`query.context.perThread must be an integer from 0 to ${MAX_CONTEXT_PER_THREAD}`);
    }
  }
}

/**
 * Checks a decision-facts query's shape: what {@link checkCandidateQuery}
 * checks of the candidate query built from it, without building it.
 */
export function checkDecisionFactsQuery(q: DecisionFactsQuery): void {
  if (!isObject(q)) throw invalid('query must be an object');
  if (typeof q.agent !== 'string') throw invalid('query.agent must be a string');
  if (!Array.isArray(q.delegatedBy)) throw invalid('query.delegatedBy must be an array');
  for (const seat of q.delegatedBy) if (typeof seat !== 'string') throw invalid('query.delegatedBy must be strings');
  if (typeof q.now !== 'number' || !Number.isFinite(q.now)) throw invalid('query.now must be a finite number');
  if (q.runId !== undefined && typeof q.runId !== 'string') throw invalid('query.runId must be a string');
  if (q.context && (!Number.isSafeInteger(q.context) || q.context < 0 || q.context > MAX_CONTEXT_PER_THREAD)) {
    throw invalid(`query.context must be an integer from 0 to ${MAX_CONTEXT_PER_THREAD}`);
  }
}

/** Checks the arguments of `listThread`. */
export function checkListThread(thread: string, limit: number): void {
  if (typeof thread !== 'string' || parseThread(thread) === undefined) {
    throw invalid(`thread must be "org", "agent:<id>" or "crew:<id>", got ${JSON.stringify(thread)}`);
  }
  if (!Number.isSafeInteger(limit) || limit < 0) throw invalid('limit must be a non-negative integer');
}

/**
 * The row id a message id names: every driver gives ids as the decimal
 * digits of a positive integer. Anything else (`07`, `1e3`, a number past
 * 2^53) names no message, so the lookup answers none instead of failing.
 *
 * @example
 * messageRowId('12') // 12
 * messageRowId('x') // undefined
 */
export function messageRowId(id: string): number | undefined {
  if (typeof id !== 'string' || !/^[1-9][0-9]{0,15}$/.test(id)) return undefined;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The fact the policy may see: every field but the body. */
export function toFact(m: MessageFact | StoredMessage): MessageFact {
  const fact: MessageFact = {
    id: m.id,
    thread: m.thread,
    author: m.author,
    authorKind: m.authorKind,
    kind: m.kind,
    at: m.at,
  };
  if (m.runId !== undefined) fact.runId = m.runId;
  return fact;
}

/** Newest first; equal times by id descending (ids are decimal integers, later posts larger). */
export function newestFirst(a: { at: number; id: string }, b: { at: number; id: string }): number {
  return b.at - a.at || Number(b.id) - Number(a.id);
}

/** Deduplicates facts by id and orders them newest first. */
export function dedupeNewestFirst(facts: Iterable<MessageFact>): MessageFact[] {
  const byId = new Map<string, MessageFact>();
  for (const f of facts) byId.set(f.id, f);
  return [...byId.values()].sort(newestFirst);
}
