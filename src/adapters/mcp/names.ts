/**
 * Names the gateway gives: upstream names, the tool names a client sees
 * (namespaced when there are several upstreams), plangate's own tools, and
 * the `_meta` key that names a call's run.
 */
import { ErrorCode, PlangateError } from '../../core/errors.js';

/** Between an upstream's name and its tool's name when there are several upstreams: `fs__write_file`. */
export const NAMESPACE_SEPARATOR = '__';

/** An upstream's name: letters, digits and `-`, so the separator cannot occur in it. */
export const UPSTREAM_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/;

export { DEFAULT_REVIEWER_CHANNEL, RUN_META_KEY, SAY_TOOL } from '../../core/call.js';

/** Tool names every client accepts: letters, digits, `_` and `-`, at most 64. */
export const PORTABLE_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks an upstream name, throwing a specific error.
 *
 * @example
 * checkUpstreamName('fs') // 'fs'
 */
export function checkUpstreamName(name: string): string {
  if (!UPSTREAM_NAME.test(name)) {
    throw new PlangateError(ErrorCode.InvalidInput, `upstream name "${name}": use 1–32 letters, digits and "-" (it prefixes tool names as ${name}${NAMESPACE_SEPARATOR}<tool>)`);
  }
  return name;
}

/**
 * The name a client sees for an upstream's tool.
 *
 * @example
 * exposedName('fs', 'write_file', true) // 'fs__write_file'
 * exposedName('fs', 'write_file', false) // 'write_file'
 */
export function exposedName(upstream: string, tool: string, namespaced: boolean): string {
  return namespaced ? `${upstream}${NAMESPACE_SEPARATOR}${tool}` : tool;
}
