/**
 * Server-sent events over fetch: EventSource cannot send an Authorization
 * header, and the token must not go in the URL, so the stream is read with
 * fetch and parsed with eventsource-parser. Reconnects with a growing pause.
 */
import { createParser } from 'eventsource-parser';
import { savedToken } from './session.js';

export type StreamState = 'connecting' | 'live' | 'retrying' | 'refused' | 'unavailable';

export interface StreamHandlers {
  onEvent(name: string, data: string): void;
  onState(state: StreamState, detail?: string): void;
}

/**
 * Follows `path` until the returned function is called.
 *
 * @example
 * const stop = follow('/v1/review/queue/events', { onEvent: (n, d) => …, onState: (s) => … });
 */
export function follow(path: string, handlers: StreamHandlers): () => void {
  const stop = new AbortController();
  let pause = 1000;

  async function once(): Promise<'again' | 'refused'> {
    handlers.onState('connecting');
    const res = await fetch(path, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${savedToken() ?? ''}` },
      cache: 'no-store',
      credentials: 'omit',
      signal: stop.signal,
    });
    if (res.status === 401 || res.status === 403) {
      handlers.onState('refused', res.status === 401 ? 'the token is not accepted' : 'this token may not watch the queue');
      return 'refused';
    }
    if (!res.ok || !res.body) return 'again';
    handlers.onState('live');
    pause = 1000;
    const parser = createParser({
      onEvent: (e) => handlers.onEvent(e.event ?? 'message', e.data),
      onRetry: (ms) => { pause = Math.max(500, Math.min(ms, 30_000)); },
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return 'again';
      parser.feed(value);
    }
  }

  void (async () => {
    while (!stop.signal.aborted) {
      let outcome: 'again' | 'refused' = 'again';
      try {
        outcome = await once();
      } catch {
        // network error or aborted
      }
      if (stop.signal.aborted || outcome === 'refused') return;
      handlers.onState('retrying');
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 30_000);
    }
  })();
  return () => stop.abort();
}
