/**
 * Server-sent events over fetch: EventSource cannot send an Authorization
 * header, and the token must not go in the URL, so the stream is read with
 * fetch and parsed with eventsource-parser. Reconnects with a growing pause,
 * also when the stream goes silent ({@link SILENCE_MS}).
 */
import { createParser } from 'eventsource-parser';
import { savedToken } from './session.js';

export type StreamState = 'connecting' | 'live' | 'retrying' | 'refused' | 'unavailable';

export interface StreamHandlers {
  onEvent(name: string, data: string): void;
  onState(state: StreamState, detail?: string): void;
}

/**
 * How long a stream may say nothing before it is taken for dead and opened
 * again: the server writes a comment every 15 s, so this is three of them
 * missed (a proxy or a network that dropped the connection without closing
 * it, which would otherwise leave a queue on screen that looks live).
 */
export const SILENCE_MS = 45_000;

/**
 * Follows `path` until the returned function is called.
 *
 * @example
 * const stop = follow('/v1/review/queue/events', { onEvent: (n, d) => …, onState: (s) => … });
 */
export function follow(path: string, handlers: StreamHandlers, options: { silenceMs?: number } = {}): () => void {
  const stop = new AbortController();
  const silenceMs = options.silenceMs ?? SILENCE_MS;
  let pause = 1000;
  let silent = false;

  async function once(): Promise<'again' | 'refused'> {
    handlers.onState('connecting');
    // One attempt's own signal: stopping ends it, and so does a silence.
    const attempt = new AbortController();
    const end = (): void => attempt.abort();
    stop.signal.addEventListener('abort', end, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const heard = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        silent = true;
        attempt.abort();
      }, silenceMs);
    };
    try {
      heard();
      const res = await fetch(path, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${savedToken() ?? ''}` },
        cache: 'no-store',
        credentials: 'omit',
        signal: attempt.signal,
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
        heard();
        const { value, done } = await reader.read();
        if (done) return 'again';
        parser.feed(value);
      }
    } finally {
      // However the attempt ended (a handler that threw, say), its connection is closed with it.
      clearTimeout(timer);
      attempt.abort();
      stop.signal.removeEventListener('abort', end);
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
      handlers.onState('retrying', silent ? `nothing heard for ${Math.round(silenceMs / 1000)} s` : undefined);
      silent = false;
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 30_000);
    }
  })();
  return () => stop.abort();
}
