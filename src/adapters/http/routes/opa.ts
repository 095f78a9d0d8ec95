/**
 * The OPA-compatible data API: `POST /v1/data/<path>` with `{"input": …}`
 * answers `{"result": …}` as `opa run -s` loaded with the bundle from
 * `plangate compile` would, so a gateway that already speaks to OPA can point
 * at plangate. The input is evaluated as given (no fact gathering, nothing
 * audited), like OPA.
 *
 * Served documents: the entrypoints (`plangate/decision`, `plangate/effective`)
 * and the rules data (`plangate/rules`), and any path into them
 * (`plangate/decision/allowed`). A path outside `plangate` is undefined,
 * answered `{}` as OPA does. The policy's internal rules (e.g.
 * `plangate/plan_required/gated`) are not compiled into plangate's policy:
 * they answer 404 `document_not_served` rather than a wrong `{}`.
 */
import { checkJson } from '../../../core/json.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { ENTRYPOINTS } from '../../../engine/policy.js';
import type { HttpDeps } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import type { Reply, RouteContext, Router } from '../router.js';

const ROOT = 'plangate';
const MISSING_INPUT = { code: 'api_usage_warning', message: "'input' key missing from the request" };

function segmentsOf(path: string): string[] {
  try {
    return path.split('/').filter((s) => s !== '').map(decodeURIComponent);
  } catch {
    throw new PlangateError(ErrorCode.InvalidInput, 'the path is not valid percent-encoding');
  }
}

/** Follows `path` into a JSON value, as a reference into a document does in Rego. */
function walk(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (Array.isArray(at)) {
      if (!/^(0|[1-9]\d*)$/.test(key)) return undefined;
      at = at[Number(key)];
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, key)) {
      at = (at as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return at;
}

/** The input of a request: `{ given: false }` when none was sent (or it was null). */
function inputOf(ctx: RouteContext): { given: boolean; value?: unknown } {
  if (ctx.method === 'GET') {
    const raw = ctx.query.get('input');
    if (raw === null) return { given: false };
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new HttpError(HttpCode.MalformedJson, 'the input query parameter is not JSON');
    }
    checkJson(value, 'input');
    return { given: true, value };
  }
  const body = ctx.body;
  if (body === undefined || body === null) return { given: false };
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new PlangateError(ErrorCode.InvalidInput, 'the body must be a JSON object: {"input": …}');
  }
  const input = (body as { input?: unknown }).input;
  return input === undefined || input === null ? { given: false } : { given: true, value: input };
}

/** The value of a document, or undefined when it is undefined. */
function documentAt(deps: HttpDeps, segments: string[], input: { given: boolean; value?: unknown }): unknown {
  if (segments.length === 0 || (segments.length === 1 && segments[0] === ROOT)) {
    throw new HttpError(HttpCode.DocumentNotServed, `plangate serves ${servedList()} and paths into them, not the whole ${segments.length ? ROOT : 'data'} document`);
  }
  if (segments[0] !== ROOT) return undefined;
  const name = `${ROOT}/${segments[1]}`;
  if (segments[1] === 'rules') {
    const rules = deps.rules.inForce();
    if (!rules) throw new PlangateError(ErrorCode.PolicyUnavailable, 'no rules are in force: plangate is failing open (see /health)');
    return walk({ rules: rules.data }, segments.slice(1));
  }
  if (!(Object.values(ENTRYPOINTS) as string[]).includes(name)) {
    throw new HttpError(HttpCode.DocumentNotServed, `${segments.join('/')} is not served: plangate serves ${servedList()} and paths into them`);
  }
  if (!input.given) return undefined;
  checkInputLists(input.value);
  const policy = deps.policy();
  if (!policy) throw new PlangateError(ErrorCode.PolicyUnavailable, 'no policy is loaded (plangate is failing open)');
  return walk(policy.evaluate(name, input.value), segments.slice(2));
}

/**
 * The most entries the data API takes in an input's lists: more than any
 * decision the gate gathers has (a delegation chain is at most 16 seats, a
 * seat's crews at most 64 deep), far fewer than would let one evaluation
 * hold the process's only thread and the policy's memory for seconds (the
 * rules compare messages with upstream seats, pair by pair).
 */
export const INPUT_LISTS: Readonly<Record<'upstream' | 'messages' | 'delegations', number>> = { upstream: 16, messages: 4096, delegations: 1600 };

/** Throws `invalid_input` for an input with a list longer than {@link INPUT_LISTS} allows. */
function checkInputLists(input: unknown): void {
  if (typeof input !== 'object' || input === null) return;
  for (const [key, most] of Object.entries(INPUT_LISTS)) {
    const list = (input as Record<string, unknown>)[key];
    if (Array.isArray(list) && list.length > most) {
      throw new PlangateError(ErrorCode.InvalidInput, `input.${key} has ${list.length} entries, more than ${most}: no decision the gate gathers has as many`, [{ path: `/input/${key}`, message: `at most ${most} entries` }]);
    }
  }
}

function servedList(): string {
  return [...Object.values(ENTRYPOINTS), `${ROOT}/rules`].join(', ');
}

function evaluate(deps: HttpDeps) {
  return (ctx: RouteContext): Reply => {
    const input = inputOf(ctx);
    const result = documentAt(deps, segmentsOf(ctx.params['*'] ?? ''), input);
    const body = {
      ...(result !== undefined ? { result } : {}),
      ...(!input.given && ctx.method === 'POST' ? { warning: MISSING_INPUT } : {}),
    };
    const pretty = ctx.query.get('pretty');
    if (pretty !== null && pretty !== 'false') {
      return { raw: { bytes: `${JSON.stringify(body, null, 2)}\n`, contentType: 'application/json' } };
    }
    return { body };
  };
}

export function registerOpaRoutes(router: Router, deps: HttpDeps): void {
  for (const path of ['/v1/data', '/v1/data/*']) {
    for (const method of ['GET', 'POST'] as const) {
      router.add({ method, path, roles: ['policy', 'operator'], body: 'json', errors: 'opa', handle: evaluate(deps) });
    }
  }
}
