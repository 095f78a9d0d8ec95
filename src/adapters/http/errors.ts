/**
 * The one map from outcome to HTTP status for the HTTP adapter, and the
 * error body every route answers with: `{ error: { code, message, details? } }`.
 * Nothing else in the adapter picks a status for an error.
 */
import { ErrorCode, PlangateError, QuotaExceededError, storeErrorShown, type Problem } from '../../core/errors.js';

/** Error codes only the HTTP adapter raises (the protocol's own failures). */
export const HttpCode = {
  /** No `Authorization: Bearer` header, a malformed one, or a token nobody issued. */
  Unauthorized: 'unauthorized',
  /** The request's Host is not one the listener answers to (DNS rebinding; see rebinding.ts). */
  HostNotAllowed: 'host_not_allowed',
  /** The request's Origin is not an allowed one (see rebinding.ts). */
  OriginNotAllowed: 'origin_not_allowed',
  /** The token is valid but its role may not use this route. */
  Forbidden: 'forbidden',
  /** An agent token named another seat in the body (as agent or author). */
  SeatMismatch: 'seat_mismatch',
  RouteNotFound: 'route_not_found',
  MethodNotAllowed: 'method_not_allowed',
  /** The body is larger than the configured limit. */
  BodyTooLarge: 'body_too_large',
  /** A body that is not `application/json`. */
  UnsupportedMediaType: 'unsupported_media_type',
  /** The body is not JSON. */
  MalformedJson: 'malformed_json',
  /** `POST /mcp/call`: no executor is configured for this tool. */
  NoExecutor: 'no_executor',
  /** `POST /v1/hooks/:host`: plangate has no hook contract for this host. */
  UnknownHost: 'unknown_host',
  /** The executor could not be reached, or its answer was too large or cut off. */
  UpstreamFailed: 'upstream_failed',
  /** The executor did not answer in time. */
  UpstreamTimeout: 'upstream_timeout',
  /** The OPA data API: a document plangate does not serve (see routes/opa.ts). */
  DocumentNotServed: 'document_not_served',
  /** `GET /v1/audit`: the audit sink in use cannot be read back. */
  AuditUnreadable: 'audit_unreadable',
  /** Too many request bodies are being read at once (see limits.ts): retry in a moment. */
  Busy: 'busy',
  /** This token's own share (bytes being read, requests in flight; see shares.ts) is spent: retry in a moment. */
  TooManyRequests: 'too_many_requests',
  /** The request body arrived slower than the minimum upload rate (see limits.ts). */
  UploadTooSlow: 'upload_too_slow',
  /** Anything unexpected; the message never carries internals. */
  Internal: 'internal',
} as const;
export type HttpCode = (typeof HttpCode)[keyof typeof HttpCode];

/**
 * HTTP status of every error code and of a plan-required refusal. A refusal
 * is 409: the caller may act, it is missing a step. 403 is for a caller that
 * may not act at all, 401 for one without credentials.
 */
export const STATUS: Readonly<Record<ErrorCode | HttpCode, number>> = {
  [ErrorCode.InvalidInput]: 400,
  [HttpCode.MalformedJson]: 400,
  [HttpCode.Unauthorized]: 401,
  [HttpCode.Forbidden]: 403,
  [HttpCode.SeatMismatch]: 403,
  [HttpCode.HostNotAllowed]: 403,
  [HttpCode.OriginNotAllowed]: 403,
  [ErrorCode.ClaimRefused]: 403,
  [ErrorCode.NotApprover]: 403,
  [ErrorCode.NotFound]: 404,
  [HttpCode.RouteNotFound]: 404,
  [HttpCode.NoExecutor]: 404,
  [HttpCode.UnknownHost]: 404,
  [HttpCode.DocumentNotServed]: 404,
  [HttpCode.MethodNotAllowed]: 405,
  [ErrorCode.PlanRequired]: 409,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.PlanningHold]: 409,
  [ErrorCode.ApprovalRequired]: 409,
  [ErrorCode.ReadGuard]: 409,
  [ErrorCode.ToolChanged]: 409,
  [ErrorCode.AlreadyHeld]: 409,
  [ErrorCode.PlanningGateOff]: 409,
  [ErrorCode.NotHeld]: 404,
  [HttpCode.BodyTooLarge]: 413,
  [HttpCode.UnsupportedMediaType]: 415,
  [ErrorCode.RulesInvalid]: 422,
  [ErrorCode.RulesEditRefused]: 422,
  [ErrorCode.RulesUnreadable]: 500,
  [ErrorCode.RulesMissing]: 500,
  [ErrorCode.PolicyResultInvalid]: 500,
  [ErrorCode.StoreFailure]: 500,
  [HttpCode.Internal]: 500,
  [HttpCode.UpstreamFailed]: 502,
  [ErrorCode.PolicyUnavailable]: 503,
  [ErrorCode.StoreUnavailable]: 503,
  [HttpCode.Busy]: 503,
  [HttpCode.TooManyRequests]: 429,
  [ErrorCode.QuotaExceeded]: 429,
  [HttpCode.UploadTooSlow]: 408,
  [HttpCode.AuditUnreadable]: 503,
  [HttpCode.UpstreamTimeout]: 504,
};

/** A store that cannot be reached may be back in a moment: a client may retry after a second. */
const RETRY_SOON: Readonly<Record<string, string>> = Object.freeze({ 'Retry-After': '1' });

/** A quota's refusal: when the rate refused, the seconds until the window frees a write (RFC 9110 §10.2.3). */
function quotaHeaders(error: PlangateError): Record<string, string> {
  return error instanceof QuotaExceededError && error.retryAfterSec !== undefined ? { 'Retry-After': String(error.retryAfterSec) } : {};
}

/** The status for a code; an unknown code (e.g. one added to core later) is a 500. */
export function statusFor(code: string): number {
  return (STATUS as Record<string, number>)[code] ?? 500;
}

/**
 * An error raised by the HTTP adapter itself.
 *
 * @example
 * throw new HttpError(HttpCode.Forbidden, 'an operator token cannot act as a seat');
 */
export class HttpError extends PlangateError {
  readonly httpCode: HttpCode;
  /** Extra response headers, e.g. `WWW-Authenticate` or `Allow`. */
  readonly headers: Record<string, string>;

  constructor(code: HttpCode, message: string, details: Problem[] = [], headers: Record<string, string> = {}) {
    // The core class types its code as ErrorCode; the adapter's codes extend that set.
    super(code as unknown as ErrorCode, message, details);
    this.name = 'HttpError';
    this.httpCode = code;
    this.headers = headers;
  }
}

/** The JSON body of an error answer. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Problem[] };
}

/** What an error becomes on the wire. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the error was not a PlangateError (a bug or an outage): worth logging. */
  unexpected: boolean;
  /** A store error's own message, kept from a caller who may not read it: the operator's log should have it. */
  withheld?: string;
}

/**
 * The operator's log line for an error worth logging: an unexpected one
 * (with its stack) or a store error whose message the caller was not shown.
 *
 * @example
 * logLine(new PlangateError(ErrorCode.StoreUnavailable, 'postgres store: …'), { method: 'POST', route: '/v1/say' })
 * // 'plangate: store_unavailable on POST /v1/say: postgres store: …'
 */
export function logLine(error: unknown, where: { method: string; route: string }): string {
  if (error instanceof PlangateError) return `plangate: ${error.code} on ${where.method} ${where.route}: ${error.message}`;
  return `plangate: internal error on ${where.method} ${where.route}: ${error instanceof Error ? error.stack ?? error.message : String(error)}`;
}

/** Whose answer it is: an operator reads a store error's own message, anyone else its code's words. */
export type Reader = 'operator' | 'caller';

/**
 * Turns anything thrown into the answer. A PlangateError keeps its code and
 * message (they are written for callers), except a store error's message,
 * which only an operator reads (see `STORE_ERROR_SHOWN` in core/errors.ts); anything
 * else becomes `internal` with a generic message, so internals never leak.
 *
 * @example
 * errorAnswer(new PlangateError(ErrorCode.NotFound, 'no crew desk')).status // 404
 */
export function errorAnswer(thrown: unknown, reader: Reader = 'caller'): ErrorAnswer {
  if (thrown instanceof PlangateError) {
    const details = thrown.details.length ? { details: thrown.details } : {};
    const shown = reader === 'operator' ? undefined : storeErrorShown(thrown);
    return {
      status: statusFor(thrown.code),
      body: { error: { code: thrown.code, message: shown ?? thrown.message, ...(shown === undefined ? details : {}) } },
      headers: thrown instanceof HttpError ? thrown.headers : thrown.code === ErrorCode.StoreUnavailable ? RETRY_SOON : quotaHeaders(thrown),
      unexpected: false,
      ...(shown !== undefined ? { withheld: thrown.message } : {}),
    };
  }
  return {
    status: STATUS[HttpCode.Internal],
    body: { error: { code: HttpCode.Internal, message: 'internal error' } },
    headers: {},
    unexpected: true,
  };
}
