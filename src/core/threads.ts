/**
 * Thread names. Every agent has `agent:<id>`, every crew `crew:<id>`,
 * and the org has `org`.
 */
import type { Lineage } from './types.js';

export const ORG_THREAD = 'org';

/** Ids of agents and crews: letters, digits and `._:@/-`, at most 128 characters. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/** Keys that must never become ids: they collide with JavaScript object machinery. */
export const RESERVED_IDS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `id` is acceptable as an agent or crew id. */
export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && ID_PATTERN.test(id) && !RESERVED_IDS.has(id);
}

/** `agent:<id>` */
export function agentThread(id: string): string {
  return `agent:${id}`;
}

/** `crew:<id>` */
export function crewThread(id: string): string {
  return `crew:${id}`;
}

export type ParsedThread = { kind: 'org' } | { kind: 'agent'; id: string } | { kind: 'crew'; id: string };

/**
 * Parses a thread name, or returns undefined when it is not one.
 *
 * @example
 * parseThread('crew:desk') // { kind: 'crew', id: 'desk' }
 */
export function parseThread(name: string): ParsedThread | undefined {
  if (name === ORG_THREAD) return { kind: 'org' };
  const m = /^(agent|crew):(.+)$/.exec(name);
  if (!m || !isValidId(m[2])) return undefined;
  return { kind: m[1] as 'agent' | 'crew', id: m[2] as string };
}

/**
 * The threads in which to look for an agent's messages: its own, its crews'
 * (nearest first) and the org's. This only plans the fetch; whether a thread
 * counts is decided by the policy.
 */
export function threadsToFetch(lineage: Lineage): string[] {
  return [agentThread(lineage.id), ...lineage.crews.map(crewThread), ORG_THREAD];
}
