/**
 * An MCP server's whole tool list, page by page, as the gateway and
 * `plangate init --from-mcp` read it: bounded in pages, with the list's own
 * `_meta`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** Pages of `tools/list` read at most: a server that offers more is listed in part (one that never stops paging is cut off). */
export const MAX_LIST_PAGES = 100;

/**
 * Every page of a server's tool list, up to {@link MAX_LIST_PAGES};
 * `partial` says the server had more, and `meta` is the list's own `_meta`
 * (the pages' merged, a later page's key over an earlier one's).
 *
 * @example
 * const { tools, partial } = await readToolList(client);
 */
export async function readToolList(client: Client): Promise<{ tools: Tool[]; partial: boolean; meta?: Record<string, unknown> }> {
  const tools: Tool[] = [];
  let meta: Record<string, unknown> | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const r = await client.listTools(cursor !== undefined ? { cursor } : undefined);
    tools.push(...r.tools);
    if (r._meta) meta = { ...meta, ...r._meta };
    cursor = r.nextCursor;
    if (cursor === undefined) break;
  }
  return { tools, partial: cursor !== undefined, ...(meta ? { meta } : {}) };
}
