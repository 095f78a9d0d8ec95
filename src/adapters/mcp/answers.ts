/**
 * The requests a client has sent over a transport and not yet been answered.
 * A stdio client may close its end right after its last request (a pipe, or
 * the protocol's own way to shut down: close the server's stdin, then wait
 * for it to exit); the gateway answers what it was sent before it stops. A
 * request the client cancelled is not waited for: it gets no answer.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface Answers {
  /** Resolves once every request received so far has been answered. */
  idle(): Promise<void>;
}

type Id = string | number;

function requestId(m: JSONRPCMessage): Id | undefined {
  return 'method' in m && 'id' in m ? m.id : undefined;
}

function answerId(m: JSONRPCMessage): Id | undefined {
  return !('method' in m) && 'id' in m ? (m.id as Id | undefined) : undefined;
}

/** The request a client's `notifications/cancelled` gives up: it gets no answer (the protocol says none is sent). */
function cancelledId(m: JSONRPCMessage): Id | undefined {
  if (!('method' in m) || m.method !== 'notifications/cancelled' || 'id' in m) return undefined;
  const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
  // The SDK ignores a cancellation whose id is falsy (it answers request 0 anyway): so does this.
  return (typeof id === 'string' || typeof id === 'number') && id ? id : undefined;
}

/**
 * Follows the requests coming in over `transport` and the answers going out.
 * Call it after the server has connected to the transport (it wraps the
 * handlers the server set).
 *
 * @example
 * await server.connect(transport);
 * const answers = trackAnswers(transport);
 * process.stdin.once('end', () => void answers.idle().then(stop));
 */
export function trackAnswers(transport: Transport): Answers {
  const open = new Set<Id>();
  const waiting: (() => void)[] = [];
  const settle = (id: Id | undefined): void => {
    if (id !== undefined && open.delete(id) && open.size === 0) for (const wake of waiting.splice(0)) wake();
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = requestId(message);
    if (id !== undefined) open.add(id);
    onmessage?.(message, extra);
    settle(cancelledId(message));
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      settle(answerId(message));
    }
  };
  return {
    idle: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => void waiting.push(resolve))),
  };
}
