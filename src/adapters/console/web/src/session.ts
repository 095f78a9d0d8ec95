/**
 * The sign-in: the token lives in this tab's sessionStorage only — never in
 * the URL, a cookie or localStorage — and is sent as a bearer header. Closing
 * the tab or signing out forgets it.
 */
const KEY = 'plangate.console.token';

export type Role = 'operator' | 'reviewer' | 'approver' | 'agent' | 'policy' | 'orchestrator';

/** Who signed in, as `GET /v1/whoami` says. */
export interface Principal {
  role: Role;
  name: string;
}

export function savedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}

/** The roles the console is for. */
export const CONSOLE_ROLES: readonly Role[] = ['operator', 'reviewer', 'approver'];
