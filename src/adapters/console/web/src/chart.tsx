/**
 * Refusals over time, stacked by check: an SVG bar chart drawn from the
 * events the page already holds (no chart library: a few rectangles, with
 * a text summary for screen readers and a title on every bar).
 */
import { CHECK_LABEL, when } from './format.js';

export interface ChartEvent {
  time: string;
  check: string;
}

const CHECKS = ['plan_required', 'planning_hold', 'read_guard'] as const;
const PAD = { left: 36, right: 8, top: 10, bottom: 28 };

/** Bucket sizes to pick from, smallest first. */
const STEPS = [60_000, 300_000, 900_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];

export function RefusalChart({ events, since, until }: { events: ChartEvent[]; since: number; until: number }) {
  // A phone gets a narrower drawing, so its labels stay readable when scaled to the screen.
  const narrow = typeof matchMedia === 'function' && matchMedia('(max-width: 640px)').matches;
  const W = narrow ? 380 : 720;
  const H = narrow ? 220 : 200;
  const span = Math.max(until - since, 60_000);
  const step = STEPS.find((s) => span / s <= 48) ?? STEPS[STEPS.length - 1]!;
  const start = Math.floor(since / step) * step;
  const n = Math.max(1, Math.ceil((until - start) / step));
  const buckets = Array.from({ length: n }, () => ({ plan_required: 0, planning_hold: 0, read_guard: 0 }) as Record<string, number>);
  for (const e of events) {
    const i = Math.floor((Date.parse(e.time) - start) / step);
    const b = buckets[i];
    if (b && e.check in b) b[e.check] = (b[e.check] ?? 0) + 1;
  }
  const highest = Math.max(1, ...buckets.map((b) => CHECKS.reduce((s, c) => s + (b[c] ?? 0), 0)));
  // A top the ticks divide evenly: 1, 2, 4, then multiples of 4.
  const max = highest <= 2 ? highest : Math.ceil(highest / 4) * 4;
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const bw = innerW / n;
  const y = (v: number): number => PAD.top + innerH - (v / max) * innerH;
  const totals = CHECKS.map((c) => `${events.filter((e) => e.check === c).length} ${CHECK_LABEL[c]}`).join(', ');
  const labelEvery = Math.ceil(n / (narrow ? 3 : 6));

  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Refusals from ${when(new Date(since).toISOString())} to ${when(new Date(until).toISOString())}: ${totals}`}>
        <line class="axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + innerH} y2={PAD.top + innerH} />
        {[...new Set([0, max / 2, max])].filter(Number.isInteger).map((v) => (
          <g key={v}>
            <line class="grid" x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
            <text class="tick" x={PAD.left - 6} y={y(v) + 4} text-anchor="end">{v}</text>
          </g>
        ))}
        {buckets.map((b, i) => {
          let acc = 0;
          const x = PAD.left + i * bw;
          const from = new Date(start + i * step).toISOString();
          return (
            <g key={i}>
              {CHECKS.map((c) => {
                const v = b[c] ?? 0;
                if (v === 0) return null;
                const top = y(acc + v);
                const height = y(acc) - top;
                acc += v;
                return (
                  <rect key={c} class={`bar bar-${c}`} x={x + 1} y={top} width={Math.max(1, bw - 2)} height={height}>
                    <title>{`${when(from)}: ${v} ${CHECK_LABEL[c]}`}</title>
                  </rect>
                );
              })}
              {i % labelEvery === 0 && (
                <text class="tick" x={x + bw / 2} y={H - 8} text-anchor="middle">{label(start + i * step, step)}</text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="legend">
          {CHECKS.map((c) => <li key={c}><span class={`swatch bar-${c}`} aria-hidden="true" />{CHECK_LABEL[c]}</li>)}
        </ul>
      </figcaption>
    </figure>
  );
}

function label(ms: number, step: number): string {
  const d = new Date(ms);
  const p = (x: number): string => String(x).padStart(2, '0');
  const day = `${p(d.getMonth() + 1)}-${p(d.getDate())}`;
  const hour = `${p(d.getHours())}:${p(d.getMinutes())}`;
  return step >= 86_400_000 ? day : step >= 3 * 3_600_000 ? `${day} ${hour}` : hour;
}
