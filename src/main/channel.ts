/**
 * The seat's reviewer channel as the rules in force name it, for adapters
 * that answer plangate's own tools (the MCP gateway, an agent host's hook).
 */
import { DEFAULT_REVIEWER_CHANNEL } from '../core/call.js';
import type { Plangate } from './open.js';

/**
 * The reviewer-channel lookup of an opened plangate: the built-in name while no rules are in force.
 *
 * @example
 * await reviewerChannels(pg)('0xWORKER') // 'plangate_submit_plan'
 */
export function reviewerChannels(pg: Pick<Plangate, 'engine' | 'store'>): (seat: string) => Promise<string> {
  return async (seat) => {
    const engine = pg.engine;
    if (!engine) return DEFAULT_REVIEWER_CHANNEL;
    return engine.planning(await pg.store.lineage(seat)).reviewerChannel.value;
  };
}
