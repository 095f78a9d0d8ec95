/**
 * The banner on every page while plangate is not enforcing plan-required
 * (failing open) or is otherwise degraded, read from `/health` when the
 * console opens and every {@link HEALTH_POLL_MS} after: someone who runs the
 * crews sees it without opening the rules page. An operator's token gets the
 * reasons; a reviewer's gets only the state.
 */
import { useEffect, useState } from 'preact/hooks';
import { get } from './api.js';

/** How often the banner reads `/health` again. */
export const HEALTH_POLL_MS = 5_000;

interface Health {
  status: 'ok' | 'degraded';
  enforcing?: boolean;
  reasons?: string[];
  failOpen?: { reason: string; since: string };
}

export function HealthBanner() {
  const [h, setH] = useState<Health | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const read = (): void => void get<Health>('/health').then((got) => { if (live) setH(got); }, () => {});
    read();
    const timer = setInterval(read, HEALTH_POLL_MS);
    return () => { live = false; clearInterval(timer); };
  }, []);
  if (!h || h.status === 'ok') return null;
  const failingOpen = h.enforcing === false || h.failOpen !== undefined;
  return (
    <div class="banner" role="alert" data-testid="health-banner">
      <strong>{failingOpen ? 'plangate is failing open: plan-required is NOT enforced.' : 'plangate is degraded.'}</strong>{' '}
      {h.reasons && h.reasons.length > 0
        ? <span>{h.reasons.join(' · ')}</span>
        : <span>An operator's token shows why (the Rules page, or /health).</span>}
    </div>
  );
}
