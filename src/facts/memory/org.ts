/**
 * The org half of a memory store: crews (each with its parent) and agents
 * (each in one crew), with the placement checks on write.
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';
import type { Agent, Crew, OrgStore } from '../port.js';
import { checkAgent, checkCrew, checkCrewPlacement, MAX_CREW_DEPTH } from '../validate.js';
import { entry } from './rows.js';

/** A safety stop for walking crew chains; placement checks keep real chains within MAX_CREW_DEPTH. */
const MAX_CHAIN = MAX_CREW_DEPTH + 1;

/** The org's writes and reads, plus what the store's decisions read of it. */
export interface MemoryOrg extends Omit<OrgStore, 'lineage'> {
  /** The crew an agent is in, if the agent is known. */
  crewOf(agentId: string): string | undefined;
  /** The crew and its ancestors, nearest first. */
  chain(crewId: string): string[];
}

/**
 * The org half of a memory store. `assertOpen` throws once the store is
 * closed; `changed` runs after every write (the store drops what it keeps
 * about seats).
 */
export function createMemoryOrg(assertOpen: () => void, changed: () => void): MemoryOrg {
  const crews = new Map<string, string | null>();
  const children = new Map<string, Set<string>>();
  const agents = new Map<string, string>();

  function chain(crewId: string): string[] {
    const out: string[] = [];
    let cur: string | null | undefined = crewId;
    while (cur !== null && cur !== undefined && out.length <= MAX_CHAIN) {
      out.push(cur);
      cur = crews.get(cur);
    }
    return out;
  }

  /** How many levels of crews hang below `id` (0 for a leaf or an unknown crew). */
  function height(id: string, depth = 0): number {
    if (depth > MAX_CHAIN) return depth;
    let h = 0;
    for (const c of children.get(id) ?? []) h = Math.max(h, 1 + height(c, depth + 1));
    return h;
  }

  return {
    chain,
    crewOf: (agentId) => agents.get(agentId),

    async putCrew(crew: Crew): Promise<void> {
      assertOpen();
      const { id, parent } = checkCrew(crew);
      if (parent !== null) {
        if (!crews.has(parent)) throw new PlangateError(ErrorCode.NotFound, `unknown parent crew: ${parent}`);
        checkCrewPlacement(id, chain(parent), height(id));
      }
      const old = crews.get(id);
      if (old) children.get(old)?.delete(id);
      if (parent !== null) entry(children, parent, () => new Set()).add(id);
      crews.set(id, parent);
      changed();
    },

    async putAgent(agent: Agent): Promise<void> {
      assertOpen();
      const { id, crew } = checkAgent(agent);
      if (!crews.has(crew)) throw new PlangateError(ErrorCode.NotFound, `unknown crew: ${crew}`);
      agents.set(id, crew);
      changed();
    },

    async getCrew(id: string): Promise<Crew | undefined> {
      assertOpen();
      const parent = crews.get(id);
      return parent === undefined ? undefined : { id, parent };
    },

    async getAgent(id: string): Promise<Agent | undefined> {
      assertOpen();
      const crew = agents.get(id);
      return crew === undefined ? undefined : { id, crew };
    },

    async listCrews(): Promise<Crew[]> {
      assertOpen();
      return [...crews].map(([id, parent]) => ({ id, parent })).sort(byId);
    },

    async listAgents(): Promise<Agent[]> {
      assertOpen();
      return [...agents].map(([id, crew]) => ({ id, crew })).sort(byId);
    },
  };
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
