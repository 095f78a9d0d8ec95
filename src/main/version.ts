/** plangate's own version, from its package.json (read once). */
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function plangateVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
