/**
 * The checks a request passes before its handler: the token for the route
 * (401/403), then the body: its size (413), its content type (415), JSON
 * (400), bounded nesting and no lone surrogate (400 naming where), and the
 * route's schema (400 naming each field).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { checkJson } from '../../core/json.js';
import type { Principal, TokenSet } from './auth.js';
import { HttpCode, HttpError } from './errors.js';
import type { Route } from './router.js';
import { checkSchema } from './schemas.js';

/** The principal a request's token names, when the route lets it in (an open route lets anyone in). */
export function authorize(route: Route, tokens: TokenSet, authorization: string | undefined): Principal | undefined {
  if (route.roles === 'open') {
    // An open route serves anyone; a valid token may show more (e.g. /health's details). A bad one counts as none.
    if (authorization === undefined) return undefined;
    try {
      return tokens.authenticate(authorization);
    } catch {
      return undefined;
    }
  }
  const principal = tokens.authenticate(authorization);
  if (!route.roles.includes(principal.role)) {
    throw new HttpError(HttpCode.Forbidden, `an ${principal.role} token may not use ${route.method} ${route.path} (needs ${route.roles.join(' or ')})`);
  }
  return principal;
}

/** Whether a content type is JSON (`application/json` or `application/…+json`). */
export function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = (contentType.split(';')[0] as string).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** The request body as the route takes it: none, any JSON, or JSON checked against its schema. */
export function parseBody(route: Route, headers: IncomingHttpHeaders, raw: Uint8Array | string | undefined, limit: number): unknown {
  if (route.body === 'none') return undefined;
  const size = raw === undefined ? 0 : typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > limit) throw new HttpError(HttpCode.BodyTooLarge, `the body is larger than ${limit} bytes`);
  const text = raw === undefined ? '' : typeof raw === 'string' ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8');
  if (route.body === 'text') return text;
  if (text.trim() === '') {
    if (route.body === 'json') return undefined;
    throw new PlangateError(ErrorCode.InvalidInput, 'a JSON body is required', [{ path: '/', message: 'a JSON body is required' }]);
  }
  // The OPA-compatible routes take any content type, as OPA does.
  if (route.errors !== 'opa' && !isJson(headers['content-type'])) {
    throw new HttpError(HttpCode.UnsupportedMediaType, `send the body as application/json (got ${headers['content-type'] ? JSON.stringify(headers['content-type']) : 'no content type'})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(HttpCode.MalformedJson, `the body is not JSON: ${(error as Error).message}`);
  }
  // Before anything reads it: bounded nesting, and no lone surrogate anywhere (a 400 naming where).
  checkJson(value, 'body');
  return route.body === 'json' ? value : checkSchema(route.body.schema, value, 'body');
}
