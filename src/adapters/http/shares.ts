/**
 * Fair shares of what a listener holds for its callers while it reads and
 * answers them: the bytes of request bodies being read and the requests in
 * flight. Each verified principal (one token: its name is unique in the
 * token set) has a share of its own, so no one token, however many
 * requests it starts and stalls, can make another token's request wait or
 * fail:
 *
 * - a caller token (agent, orchestrator, policy) may hold at most
 *   `perCaller` bytes of the callers' pool and `inFlightPerCaller`
 *   requests at once; past its own share it is answered 429 (its own doing,
 *   `Retry-After`), and only when the pool itself is spent (many tokens at
 *   once) 503 `busy`;
 * - operator and reviewer tokens read from a reserve no caller token can
 *   reach (a hold on an agent must get through while that agent floods);
 * - requests without a verified principal (open routes) share one small
 *   share of their own.
 *
 * The key is always a principal the server verified before the body is
 * read (see app.ts `admit` and mcp/http.ts), never one the request claims.
 */
import { ByteBudget, PROCESS_BODY_BUDGET } from './limits.js';
import type { Principal } from './auth.js';

/** Bytes of the callers' pool one caller token may hold at once: 4 MiB (32 bodies of the default 128 KiB). */
export const BODY_BYTES_PER_CALLER = 4 * 1024 * 1024;
/** Bytes kept for operator and reviewer tokens, out of every caller's reach: 8 MiB. */
export const BODY_BYTES_RESERVED = 8 * 1024 * 1024;
/** Bytes all requests without a verified principal share: 256 KiB. */
export const BODY_BYTES_ANONYMOUS = 256 * 1024;
/** Requests one caller token may have in flight at once (streams included). */
export const IN_FLIGHT_PER_CALLER = 64;
/** Requests one operator or reviewer token may have in flight at once. */
export const IN_FLIGHT_PRIVILEGED = 256;
/** Requests without a verified principal in flight at once, all together. */
export const IN_FLIGHT_ANONYMOUS = 64;

/** Which share a request draws on. */
export type ShareKind = 'privileged' | 'caller' | 'anonymous';

/** The roles whose tokens read from the reserve. */
const PRIVILEGED: ReadonlySet<string> = new Set(['operator', 'reviewer']);

/** The share key of a verified principal (undefined: none). */
export function shareOf(principal: Principal | undefined): { key: string; kind: ShareKind } {
  if (!principal) return { key: '', kind: 'anonymous' };
  return { key: principal.name, kind: PRIVILEGED.has(principal.role) ? 'privileged' : 'caller' };
}

/** What a body read takes from and gives back to. */
export interface Budget {
  take(n: number): boolean;
  give(n: number): void;
  readonly limit: number;
}

export interface ShareOptions {
  /** The callers' pool (default: the process's, 64 MiB, shared with every listener of the process). */
  pool?: ByteBudget;
  perCaller?: number;
  reserved?: number;
  anonymous?: number;
  inFlightPerCaller?: number;
  inFlightPrivileged?: number;
  inFlightAnonymous?: number;
}

/** One request admitted: its body budget, and `leave()` once it is answered. */
export interface Ticket {
  readonly budget: Budget;
  /** Why a body read was refused: its own share is spent (429) or the pool (503). */
  refusal(): 'own_share' | 'pool';
  leave(): void;
}

interface Holder {
  bytes: number;
  inFlight: number;
}

/**
 * The shares of one listener (or of several, given one instance).
 *
 * @example
 * const shares = new FairShares({ perCaller: 1024 * 1024 });
 * const t = shares.enter(shareOf(principal));
 * if (typeof t === 'string') answer429(); else { await readBody(req, limit, t.budget); ...; t.leave(); }
 */
export class FairShares {
  readonly pool: ByteBudget;
  readonly reserve: ByteBudget;
  readonly anonymousBudget: ByteBudget;
  readonly perCaller: number;
  private readonly inFlight: Record<ShareKind, number>;
  private readonly holders = new Map<string, Holder>();

  constructor(o: ShareOptions = {}) {
    this.pool = o.pool ?? PROCESS_BODY_BUDGET;
    this.perCaller = o.perCaller ?? BODY_BYTES_PER_CALLER;
    this.reserve = new ByteBudget(o.reserved ?? BODY_BYTES_RESERVED);
    this.anonymousBudget = new ByteBudget(o.anonymous ?? BODY_BYTES_ANONYMOUS);
    this.inFlight = {
      caller: o.inFlightPerCaller ?? IN_FLIGHT_PER_CALLER,
      privileged: o.inFlightPrivileged ?? IN_FLIGHT_PRIVILEGED,
      anonymous: o.inFlightAnonymous ?? IN_FLIGHT_ANONYMOUS,
    };
    for (const [name, n] of Object.entries({ perCaller: this.perCaller, ...this.inFlight })) {
      if (!Number.isSafeInteger(n) || n < 1) throw new TypeError(`FairShares: ${name} must be a whole number of at least 1`);
    }
  }

  /** Bytes and requests a share key holds now (for tests and metrics). */
  held(key: string, kind: ShareKind): Holder {
    return { ...(this.holders.get(`${kind}:${key}`) ?? { bytes: 0, inFlight: 0 }) };
  }

  /** Admits one request of `share`, or says it has its most requests in flight already. */
  enter(share: { key: string; kind: ShareKind }): Ticket | 'too_many' {
    const id = `${share.kind}:${share.key}`;
    const h = this.holders.get(id) ?? { bytes: 0, inFlight: 0 };
    if (h.inFlight >= this.inFlight[share.kind]) return 'too_many';
    h.inFlight++;
    this.holders.set(id, h);
    const bytesCap = share.kind === 'caller' ? this.perCaller : Number.POSITIVE_INFINITY;
    const under = share.kind === 'caller' ? this.pool : share.kind === 'privileged' ? this.reserve : this.anonymousBudget;
    let why: 'own_share' | 'pool' = 'pool';
    let left = false;
    const budget: Budget = {
      limit: Math.min(bytesCap, under.limit),
      take: (n) => {
        if (h.bytes + n > bytesCap) {
          why = 'own_share';
          return false;
        }
        if (!under.take(n)) {
          why = 'pool';
          return false;
        }
        h.bytes += n;
        return true;
      },
      give: (n) => {
        const back = Math.min(n, h.bytes);
        h.bytes -= back;
        under.give(back);
      },
    };
    return {
      budget,
      refusal: () => why,
      leave: () => {
        if (left) return;
        left = true;
        h.inFlight--;
        if (h.inFlight === 0 && h.bytes === 0) this.holders.delete(id);
      },
    };
  }
}
