/**
 * What the policy is given of a tool call's arguments, for hosts and
 * gateways that receive the arguments whole (`POST /mcp/call`, an MCP
 * gateway). Large values such as file contents are left out, but never
 * silently: their names go with the call (`omittedArgs`), so the read guard
 * refuses a call whose path or range it was not shown instead of deciding on
 * a truncated view. A call with more arguments than the policy can be given
 * is invalid.
 */
import { ErrorCode, PlangateError } from '../core/errors.js';

/** Largest single argument value (as JSON, UTF-8 bytes) the policy is shown. */
export const POLICY_ARG_MAX_BYTES = 900;
/** Most arguments a call may have: the policy is given every one (by name). */
export const POLICY_ARG_MAX_KEYS = 64;
const ARG_KEY = /^[A-Za-z_$][A-Za-z0-9_.$-]{0,63}$/;

/** The arguments the policy is shown, and the names of those left out for their size. */
export interface PolicyArgs {
  args: Record<string, unknown>;
  /** Arguments left out because their JSON is over {@link POLICY_ARG_MAX_BYTES} bytes. */
  omitted: string[];
  /** Every argument is shown, as given: the view holds the same as the arguments. */
  whole: boolean;
}

/**
 * Splits a call's arguments into what the policy is shown and what is left
 * out for its size. Throws `invalid_input` for more than
 * {@link POLICY_ARG_MAX_KEYS} arguments. A name no rule could name (not an
 * argument name) is skipped: no check can be reading it.
 *
 * @example
 * argsForPolicy({ path: 'a.log', content: 'x'.repeat(5000) }) // { args: { path: 'a.log' }, omitted: ['content'], whole: false }
 */
export function argsForPolicy(args: Record<string, unknown>): PolicyArgs {
  const keys = Object.keys(args);
  if (keys.length > POLICY_ARG_MAX_KEYS) {
    throw new PlangateError(
      ErrorCode.InvalidInput,
      `arguments has ${keys.length} keys, more than the ${POLICY_ARG_MAX_KEYS} the policy can be given`,
      [{ path: '/arguments', message: `at most ${POLICY_ARG_MAX_KEYS} arguments` }],
    );
  }
  const out: Record<string, unknown> = {};
  const omitted: string[] = [];
  let shown = 0;
  for (const key of keys) {
    if (!ARG_KEY.test(key) || key === '__proto__') continue;
    const value = args[key];
    if (Buffer.byteLength(JSON.stringify(value) ?? '') > POLICY_ARG_MAX_BYTES) {
      omitted.push(key);
      continue;
    }
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    shown++;
  }
  return { args: out, omitted, whole: shown === keys.length };
}
