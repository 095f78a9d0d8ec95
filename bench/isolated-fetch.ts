/**
 * The fetch of the MCP bench's Streamable HTTP clients. The SDK's
 * client transport passes one connection-wide abort signal to every
 * request, and Node's fetch adds a listener to it per request that only
 * garbage collection removes, so a client making thousands of calls piles
 * up listeners (and warnings). Here each request gets a signal of its own,
 * tied to the caller's and let go as soon as the answer's body is done.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * `fetch` with a private abort signal per request; aborting the caller's signal still aborts it.
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: isolatedFetch })
 */
export const isolatedFetch: FetchLike = async (url, init) => {
  const parent = init?.signal;
  if (!parent) return fetch(url, init);
  const own = new AbortController();
  const onAbort = () => own.abort(parent.reason);
  const release = () => parent.removeEventListener('abort', onAbort);
  if (parent.aborted) own.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: own.signal });
  } catch (error) {
    release();
    throw error;
  }
  if (!response.body) {
    release();
    return response;
  }
  const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: release }));
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
};
