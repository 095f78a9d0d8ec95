/**
 * A PostgreSQL store's location, told apart from other locations and shown
 * without its password. Apart from the driver, so that a command on an
 * SQLite store never loads it.
 */

/** The `postgres://` and `postgresql://` URL schemes. */
export const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * The URL without its password, for logs and errors.
 *
 * @example
 * redactUrl('postgres://app:secret@db:5432/plangate') // 'postgres://app:***@db:5432/plangate'
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
