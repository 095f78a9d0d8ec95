/**
 * Seat authentication: bearer tokens, each with a role. An `agent` token is
 * bound to one seat; the seat of every call it decides or executes, and the
 * author of every message it posts, come from the token and never from the
 * body. `operator` tokens manage rules and the org; `policy` tokens query the
 * OPA-compatible data API; `reviewer` tokens place reviewer holds (where the
 * planning gate is on), push back and release, nothing else; `orchestrator`
 * tokens start and end runs and record delegations, nothing else.
 *
 * Tokens come from a JSON file or the environment. They are hashed (sha256)
 * at load and only the digests are kept; a presented token is hashed and
 * compared with every digest in constant time. No token is ever logged or
 * echoed in an error.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ErrorCode, PlangateError, type Problem } from '../../core/errors.js';
import { HttpCode, HttpError } from './errors.js';
import { checkSchema } from './schemas.js';
import { TOKENS_ENV, TOKENS_FILE_ENV } from './token-env.js';

export const ROLES = ['agent', 'operator', 'policy', 'reviewer', 'orchestrator', 'approver'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling: the role and, for an agent token, its seat. */
export type Principal =
  | { role: 'agent'; seat: string; name: string }
  | { role: 'operator'; name: string }
  | { role: 'policy'; name: string }
  | { role: 'reviewer'; name: string }
  | { role: 'orchestrator'; name: string }
  | { role: 'approver'; name: string };

/** One token as written in a tokens file or the environment. */
export interface TokenEntry {
  name?: string;
  role: Role;
  /** Required for `agent`, refused for the other roles. */
  seat?: string;
  /** The token; hashed at load. */
  token?: string;
  /** Or its hex sha256, so the file holds no secret. */
  sha256?: string;
}

/** The accepted tokens, as digests. */
export interface TokenSet {
  /**
   * The principal for an `Authorization` header value; throws `unauthorized`
   * (401) for a missing, malformed or unknown token.
   */
  authenticate(authorization: string | undefined): Principal;
  readonly size: number;
}

export { TOKENS_ENV, TOKENS_FILE_ENV };

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Hex sha256 of a token, as a tokens file stores it. */
export function hashToken(token: string): string {
  return digest(token).toString('hex');
}

const challenge = (error: string): Record<string, string> => ({ 'www-authenticate': `Bearer realm="plangate", error="${error}"` });

/**
 * Builds the token set; throws `invalid_input` naming the entry (never its
 * token) when an entry is malformed or two entries share a token or a name.
 *
 * @example
 * const tokens = createTokenSet([{ role: 'agent', seat: '0xWORKER', token: process.env.WORKER_TOKEN! }]);
 * tokens.authenticate('Bearer ' + process.env.WORKER_TOKEN) // { role: 'agent', seat: '0xWORKER', name: 'agent:0xWORKER' }
 */
export function createTokenSet(entries: readonly TokenEntry[], source = 'tokens'): TokenSet {
  checkSchema('tokens', { tokens: entries }, source);
  const problems: Problem[] = [];
  const digests: Buffer[] = [];
  const principals: Principal[] = [];
  const names = new Set<string>();
  entries.forEach((e, i) => {
    const where = `${source}.tokens[${i}]`;
    if ((e.token === undefined) === (e.sha256 === undefined)) {
      problems.push({ path: `/tokens/${i}`, message: `${where}: give exactly one of "token" and "sha256"` });
      return;
    }
    if (e.role === 'agent' && e.seat === undefined) {
      problems.push({ path: `/tokens/${i}/seat`, message: `${where}.seat is required: an agent token is bound to one seat` });
      return;
    }
    if (e.role !== 'agent' && e.seat !== undefined) {
      problems.push({ path: `/tokens/${i}/seat`, message: `${where}.seat: only an agent token is bound to a seat` });
      return;
    }
    const d = e.token !== undefined ? digest(e.token) : Buffer.from(e.sha256 as string, 'hex');
    if (digests.some((x) => x.equals(d))) {
      problems.push({ path: `/tokens/${i}`, message: `${where}: the same token is listed twice` });
      return;
    }
    const name = e.name ?? (e.role === 'agent' ? `agent:${e.seat}` : e.role);
    if (names.has(name)) {
      problems.push({ path: `/tokens/${i}/name`, message: `${where}.name: "${name}" is used twice (give each token its own name)` });
      return;
    }
    names.add(name);
    digests.push(d);
    principals.push(e.role === 'agent' ? { role: 'agent', seat: e.seat as string, name } : { role: e.role, name });
  });
  if (problems.length) {
    throw new PlangateError(ErrorCode.InvalidInput, `invalid ${source}: ${problems.map((p) => p.message).join('; ')}`, problems);
  }

  return {
    size: digests.length,
    authenticate(authorization) {
      if (authorization === undefined || authorization === '') {
        throw new HttpError(HttpCode.Unauthorized, 'no credentials: send Authorization: Bearer <token>', [], challenge('invalid_request'));
      }
      const m = BEARER.exec(authorization);
      if (!m) {
        throw new HttpError(HttpCode.Unauthorized, 'malformed Authorization header: expected "Bearer <token>"', [], challenge('invalid_request'));
      }
      const presented = digest(m[1] as string);
      // Compare with every digest, without stopping at a match.
      let found = -1;
      for (let i = 0; i < digests.length; i++) {
        if (timingSafeEqual(presented, digests[i] as Buffer)) found = i;
      }
      if (found < 0) throw new HttpError(HttpCode.Unauthorized, 'unknown token', [], challenge('invalid_token'));
      return principals[found] as Principal;
    },
  };
}

/**
 * Parses a tokens file: `{ "tokens": [ { "role": "agent", "seat": "0xWORKER", "sha256": "…" }, … ] }`.
 *
 * @example
 * parseTokenFile('{"tokens":[{"role":"operator","sha256":"' + hashToken(t) + '"}]}', 'tokens.json')
 */
export function parseTokenFile(text: string, file: string): TokenEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new PlangateError(ErrorCode.InvalidInput, `${file} is not JSON: ${(error as Error).message}`);
  }
  return checkSchema<{ tokens: TokenEntry[] }>('tokens', doc, file).tokens;
}

/**
 * Parses `PLANGATE_TOKENS`: entries separated by whitespace or commas, each
 * `ROLE=TOKEN` or `agent:SEAT=TOKEN`.
 *
 * @example
 * parseTokenEnv('operator=op-secret-0123456789 agent:0xWORKER=worker-secret-0123456789')
 */
export function parseTokenEnv(value: string): TokenEntry[] {
  return value.split(/[\s,]+/).filter(Boolean).map((item, i) => {
    const eq = item.indexOf('=');
    const spec = eq < 0 ? item : item.slice(0, eq);
    const token = eq < 0 ? '' : item.slice(eq + 1);
    const colon = spec.indexOf(':');
    const role = colon < 0 ? spec : spec.slice(0, colon);
    if (!(ROLES as readonly string[]).includes(role) || !token) {
      throw new PlangateError(ErrorCode.InvalidInput, `${TOKENS_ENV} entry ${i + 1}: expected ROLE=TOKEN or agent:SEAT=TOKEN, with ROLE one of ${ROLES.join(', ')}`);
    }
    return colon < 0 ? { role: role as Role, token } : { role: role as Role, seat: spec.slice(colon + 1), token };
  });
}

/**
 * Loads the tokens: from `file` (or `PLANGATE_TOKENS_FILE`) and from
 * `PLANGATE_TOKENS`, both when both are given.
 */
export async function loadTokens(options: { file?: string; env?: NodeJS.ProcessEnv; /** None may be given (another credential, e.g. OAuth, is configured). */ optional?: boolean }): Promise<TokenSet> {
  const env = options.env ?? process.env;
  const file = options.file ?? env[TOKENS_FILE_ENV];
  const entries: TokenEntry[] = [];
  if (file) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new PlangateError(ErrorCode.InvalidInput, `tokens file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    entries.push(...parseTokenFile(text, file));
  }
  if (env[TOKENS_ENV]) entries.push(...parseTokenEnv(env[TOKENS_ENV] as string));
  if (entries.length === 0 && !options.optional) {
    throw new PlangateError(ErrorCode.InvalidInput, `no tokens: give --tokens FILE, ${TOKENS_FILE_ENV} or ${TOKENS_ENV}`);
  }
  return createTokenSet(entries, file ?? TOKENS_ENV);
}

/** A generated token, shown once. */
export interface IssuedToken {
  name: string;
  role: Role;
  seat?: string;
  token: string;
}

/**
 * A fresh random token: `pg_` and 32 random bytes, base64url.
 *
 * @example
 * newToken() // 'pg_Vx3…'
 */
export function newToken(): string {
  return `pg_${randomBytes(32).toString('base64url')}`;
}

/**
 * Issues tokens for the given seats plus one operator and one policy token.
 * Returns the tokens (to print once) and the file content, which holds only
 * their digests.
 */
export function issueTokens(seats: readonly string[]): { issued: IssuedToken[]; file: { tokens: TokenEntry[] } } {
  const issued: IssuedToken[] = [
    ...seats.map((seat) => ({ name: `agent:${seat}`, role: 'agent' as const, seat, token: newToken() })),
    { name: 'operator', role: 'operator', token: newToken() },
    { name: 'reviewer', role: 'reviewer', token: newToken() },
    { name: 'orchestrator', role: 'orchestrator', token: newToken() },
    { name: 'policy', role: 'policy', token: newToken() },
  ];
  const tokens = issued.map(({ token, ...rest }) => ({ ...rest, sha256: hashToken(token) }));
  return { issued, file: { tokens } };
}
