/** Pieces every page uses: a busy indicator, an error line, a time. */
import type { ComponentChildren } from 'preact';
import { ago, when } from './format.js';

/** Shown while something slow runs; announced to screen readers. */
export function Busy({ label }: { label: string }) {
  return (
    <p class="busy" role="status" aria-live="polite">
      <progress aria-label={label} />
      <span>{label}</span>
    </p>
  );
}

export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  return <p class="problem" role="alert">{text}</p>;
}

export function Time({ iso }: { iso: string }) {
  return <time dateTime={iso} title={iso}>{when(iso)} <span class="muted">({ago(iso)})</span></time>;
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
