/**
 * plangate as an OAuth 2.1 resource server, for `plangate serve` and
 * `plangate mcp --listen` alike: a JWT access token from the operator's
 * identity provider names the seat (one claim) and the role (another).
 * Follows the MCP authorization specification (2025-11-25, "Authorization":
 * resource servers validate that a token was issued for them, RFC 8707
 * audience, and advertise RFC 9728 protected resource metadata, pointed to
 * from `WWW-Authenticate: Bearer resource_metadata="…"` on a 401) and
 * RFC 9728 (OAuth 2.0 Protected Resource Metadata).
 *
 * Verification is `jose`'s: the signature against the issuer's JWKS
 * (fetched, cached, fetched again for a key id it has not seen, so a key
 * rotation needs no restart), the issuer, the audience (this server's
 * resource URI), expiry and not-before; only asymmetric algorithms are
 * accepted, so neither `alg: none` nor a key-confusion HMAC gets through.
 *
 * The token set's `authenticate` is synchronous (every route checks a token
 * before its body is read); a JWT is verified first, once per token, by
 * `prepare`, which each listener awaits before it answers, and the result
 * is kept until the token expires (at most {@link VERIFIED_TTL_MS}).
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { ErrorCode, PlangateError } from '../../core/errors.js';
import { isValidId } from '../../core/threads.js';
import { ROLES, type Principal, type Role, type TokenSet } from './auth.js';
import { HttpCode, HttpError } from './errors.js';
import type { Router } from './router.js';

/** The identity provider's tokens, as the operator configures them. */
export interface OAuthOptions {
  /** The `iss` every token must carry, exactly. */
  issuer: string;
  /** This server's resource URI: every token's `aud` must include it (RFC 8707). */
  resource: string;
  /** Where the issuer publishes its keys (https, or http on a loopback address). */
  jwksUri: string;
  /** The claim that names the seat (default `sub`). */
  seatClaim?: string;
  /** The claim that names the role (default `plangate_role`); a token without it has `defaultRole`. */
  roleClaim?: string;
  /** The role of a token without the role claim (default `agent`). */
  defaultRole?: Role;
  /** Authorization servers named in the metadata (default: the issuer). */
  authorizationServers?: string[];
  /** Scopes named in the metadata (default: none named). */
  scopes?: string[];
  /** Least time between two fetches of the key set (default 30 s, jose's). */
  jwksCooldownMs?: number;
  /** Clock skew allowed on `exp`/`nbf`, in seconds (default 30). */
  clockToleranceSec?: number;
}

/** Algorithms accepted: asymmetric only. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Longest time a verified token is kept without being verified again. */
export const VERIFIED_TTL_MS = 5 * 60_000;
/** Most verified tokens kept at once (the oldest go first). */
const VERIFIED_MAX = 10_000;
/** How long a refusal is kept, so the request that was refused reads why. */
const REFUSED_TTL_MS = 1_000;

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** A token set that also takes the issuer's JWTs. */
export interface OAuthTokenSet extends TokenSet {
  /** Verifies a JWT bearer token ahead of `authenticate` (a static token or none: nothing to do). Never throws. */
  prepare(authorization: string | undefined): Promise<void>;
  /** The RFC 9728 document, and the paths it is served at. */
  readonly metadata: { paths: string[]; document: Record<string, unknown> };
}

/** Whether a token set takes JWTs (then its listener awaits `prepare`). */
export function isOAuth(tokens: TokenSet): tokens is OAuthTokenSet {
  return typeof (tokens as Partial<OAuthTokenSet>).prepare === 'function';
}

function loopbackUrl(u: URL): boolean {
  return u.hostname === 'localhost' || u.hostname === '[::1]' || /^127\./.test(u.hostname);
}

function url(what: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new PlangateError(ErrorCode.InvalidInput, `OAuth ${what}: ${JSON.stringify(value)} is not a URL`);
  }
}

/**
 * Where the metadata is served: RFC 9728 section 3.1 inserts the
 * well-known path before the resource's own path; the root one too, where
 * clients look when they have no `resource_metadata` to follow.
 *
 * @example
 * metadataPaths(new URL('https://gw.example.com/mcp')) // ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']
 */
export function metadataPaths(resource: URL): string[] {
  const path = resource.pathname.replace(/\/$/, '');
  return path ? [`${WELL_KNOWN}${path}`, WELL_KNOWN] : [WELL_KNOWN];
}

function checkOptions(o: OAuthOptions): { resource: URL; jwks: URL } {
  for (const key of ['issuer', 'resource', 'jwksUri'] as const) {
    if (typeof o[key] !== 'string' || o[key] === '') throw new PlangateError(ErrorCode.InvalidInput, `OAuth needs ${key}`);
  }
  url('issuer', o.issuer);
  const resource = url('resource', o.resource);
  const jwks = url('jwksUri', o.jwksUri);
  if (resource.hash) throw new PlangateError(ErrorCode.InvalidInput, 'OAuth resource: a resource URI has no fragment (RFC 8707)');
  if (jwks.protocol !== 'https:' && !(jwks.protocol === 'http:' && loopbackUrl(jwks))) {
    throw new PlangateError(ErrorCode.InvalidInput, `OAuth jwksUri: ${o.jwksUri} must be https (http only on a loopback address)`);
  }
  if (o.defaultRole !== undefined && !ROLES.includes(o.defaultRole)) throw new PlangateError(ErrorCode.InvalidInput, `OAuth defaultRole: one of ${ROLES.join(', ')}`);
  return { resource, jwks };
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/** Why `jose` refused a token, in words a caller can act on. */
function reason(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token was not issued for this server (audience)';
    if (error.claim === 'iss') return 'the token is not from the configured issuer';
    return `the token's ${error.claim} claim is not valid: ${error.reason}`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed with a key the issuer does not publish';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token\'s algorithm is not accepted (asymmetric signatures only)';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token\'s signature does not verify';
  if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) return 'the issuer\'s keys could not be fetched';
  return 'the token is not a valid signed JWT';
}

/** The principal a verified payload names, or why it names none. */
function principalOf(payload: JWTPayload, o: Required<Pick<OAuthOptions, 'seatClaim' | 'roleClaim' | 'defaultRole'>>): Principal | string {
  const roleValue = payload[o.roleClaim] ?? o.defaultRole;
  if (typeof roleValue !== 'string' || !(ROLES as readonly string[]).includes(roleValue)) return `the token's ${o.roleClaim} claim is not one of ${ROLES.join(', ')}`;
  const role = roleValue as Role;
  const name = `oauth:${typeof payload.sub === 'string' ? payload.sub : '?'}`;
  if (role !== 'agent') return { role, name } as Principal;
  const seat = payload[o.seatClaim];
  if (typeof seat !== 'string' || !isValidId(seat)) return `the token's ${o.seatClaim} claim does not name a seat`;
  return { role: 'agent', seat, name };
}

/**
 * The static tokens and the issuer's JWTs together: a static token is
 * looked up as before; a JWT is verified by `prepare` and then known to
 * `authenticate`. Every 401 points to the metadata document.
 *
 * @example
 * const tokens = withOAuth(createTokenSet(entries), { issuer: 'https://id.example.com', resource: 'https://gw.example.com/mcp', jwksUri: 'https://id.example.com/jwks' });
 * await tokens.prepare(req.headers.authorization);
 * tokens.authenticate(req.headers.authorization) // { role: 'agent', seat: '…', name: 'oauth:…' }
 */
export function withOAuth(tokens: TokenSet, options: OAuthOptions): OAuthTokenSet {
  const { resource, jwks: jwksUrl } = checkOptions(options);
  const claims = { seatClaim: options.seatClaim ?? 'sub', roleClaim: options.roleClaim ?? 'plangate_role', defaultRole: options.defaultRole ?? 'agent' } as const;
  const jwks = createRemoteJWKSet(jwksUrl, { ...(options.jwksCooldownMs !== undefined ? { cooldownDuration: options.jwksCooldownMs } : {}), timeoutDuration: 5_000 });
  const paths = metadataPaths(resource);
  const metadataUrl = `${resource.origin}${paths[0]}`;
  const document = {
    resource: options.resource,
    authorization_servers: options.authorizationServers ?? [options.issuer],
    bearer_methods_supported: ['header'],
    ...(options.scopes?.length ? { scopes_supported: options.scopes } : {}),
    resource_name: 'plangate',
  };
  // RFC 6750 section 3: no error code when the request carried no credentials.
  const challenge = (error?: string, description?: string): Record<string, string> => ({
    'www-authenticate': `Bearer realm="plangate", resource_metadata="${metadataUrl}"${error ? `, error="${error}", error_description="${(description ?? '').replace(/["\\]/g, '')}"` : ''}`,
  });
  const verified = new Map<string, { principal?: Principal; refused?: string; until: number }>();

  const keep = (token: string, entry: { principal?: Principal; refused?: string; until: number }): void => {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
    verified.set(token, entry);
  };

  return {
    get size() {
      return tokens.size;
    },
    metadata: { paths, document },
    async prepare(authorization) {
      const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
      if (token === undefined || !JWT_SHAPE.test(token)) return;
      const known = verified.get(token);
      if (known && known.until > Date.now()) return;
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: options.issuer,
          audience: options.resource,
          algorithms: JWT_ALGORITHMS,
          clockTolerance: options.clockToleranceSec ?? 30,
          requiredClaims: ['exp'],
        });
        const p = principalOf(payload, claims);
        const until = Math.min((payload.exp as number) * 1000, Date.now() + VERIFIED_TTL_MS);
        keep(token, typeof p === 'string' ? { refused: p, until: Date.now() + REFUSED_TTL_MS } : { principal: p, until });
      } catch (error) {
        keep(token, { refused: reason(error), until: Date.now() + REFUSED_TTL_MS });
      }
    },
    authenticate(authorization) {
      try {
        return tokens.authenticate(authorization);
      } catch (error) {
        if (!(error instanceof HttpError) || error.httpCode !== HttpCode.Unauthorized) throw error;
        const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
        const known = token === undefined ? undefined : verified.get(token);
        if (known?.principal && known.until > Date.now()) return known.principal;
        if (known?.refused) throw new HttpError(HttpCode.Unauthorized, `invalid token: ${known.refused}`, [], challenge('invalid_token', known.refused));
        if (authorization === undefined || authorization === '') throw new HttpError(HttpCode.Unauthorized, error.message, [], challenge());
        throw new HttpError(HttpCode.Unauthorized, error.message, [], challenge('invalid_token', token !== undefined && JWT_SHAPE.test(token) ? 'the token was not verified' : 'unknown token'));
      }
    },
  };
}

/**
 * The route of the RFC 9728 document for `plangate serve`: open (a client
 * reads it before it has a token), one per path it is served at.
 *
 * @example
 * createHttpApp({ ..., tokens: withOAuth(tokens, oauth) }) // serves GET /.well-known/oauth-protected-resource
 */
export function registerMetadataRoutes(router: Router, tokens: OAuthTokenSet): void {
  for (const path of tokens.metadata.paths) {
    router.add({ method: 'GET', path, roles: 'open', body: 'none', handle: () => ({ body: tokens.metadata.document }) });
  }
}
