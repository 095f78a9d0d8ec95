/**
 * The console's only way to the server: the same HTTP API every client
 * uses, same origin, with the signed-in token as `Authorization: Bearer`.
 * Nothing is cached; errors come back as `ApiError` with the server's code
 * and message.
 */
import { savedToken } from './session.js';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

function headers(token: string | null, json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json' };
  if (token) h['authorization'] = `Bearer ${token}`;
  if (json) h['content-type'] = 'application/json';
  return h;
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const e = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(res.status, e?.code ?? `http_${res.status}`, e?.message ?? `the server answered ${res.status}`);
  }
  return body as T;
}

/** A GET with the signed-in token (or `token`, at sign-in). */
export async function get<T>(path: string, token: string | null = savedToken()): Promise<T> {
  return answer<T>(await fetch(path, { headers: headers(token, false), cache: 'no-store', credentials: 'omit' }));
}

/** A POST of JSON with the signed-in token. */
export async function post<T>(path: string, body: unknown): Promise<T> {
  return answer<T>(await fetch(path, { method: 'POST', headers: headers(savedToken(), true), body: JSON.stringify(body), cache: 'no-store', credentials: 'omit' }));
}

/** A path segment, escaped. */
export const seg = (s: string): string => encodeURIComponent(s);

/** A query string from the set fields. */
export function query(fields: Record<string, string | number | boolean | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
