/** Small formatting helpers for people. */
import type { VNode } from 'preact';

/** `2026-11-30 09:01:05` in the browser's time zone. */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function ago(iso: string, now: number = Date.now()): string {
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(s)) return '';
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/** `1.0 MiB`, `256 KiB`, `512 B`. */
export function bytes(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} B`;
}

/** The check names as people read them. */
export const CHECK_LABEL: Record<string, string> = {
  plan_required: 'plan required',
  planning_hold: 'planning hold',
  read_guard: 'read guard',
};

/** Splits a dotted or colon-separated name into pieces a line may break between, e.g. `plan_required:github.merge_pull_request:none`. */
export function breakable(text: string): Array<string | VNode> {
  return text.split(/(?<=[.:])/).flatMap((piece, i) => (i === 0 ? [piece] : [<wbr key={i} />, piece]));
}

/**
 * Bidi controls and characters that show nothing: in a name, a path or a
 * plan they can only hide what is there (text read backwards, words only a
 * machine sees). The soft hyphen, the combining grapheme joiner, the
 * Mongolian vowel separator, the zero-width and joiner characters, the
 * invisible operators and the deprecated format controls, the Hangul
 * fillers, the byte-order mark, the variation selectors and the tag
 * characters.
 */
const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;

/** `notes⟨U+202E⟩txt.exe`: a name, a path or a plan with its invisible characters shown as code points. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
