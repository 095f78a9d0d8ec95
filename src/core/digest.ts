/**
 * The digest an approval is bound to: SHA-256 over the call's arguments in
 * the JSON Canonicalization Scheme (RFC 8785, https://www.rfc-editor.org/rfc/rfc8785):
 * object keys sorted by UTF-16 code units, no whitespace, numbers as
 * ECMAScript serializes them, strings in the shortest JSON escaping. So key
 * order, whitespace and number spelling (1.0, 1e0) never change it; any
 * changed value does. Canonicalization is the `canonicalize` package (by
 * the RFC's author).
 */
import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ErrorCode, PlangateError } from './errors.js';

/**
 * The hex SHA-256 of `args` in RFC 8785 canonical form (`{}` when absent).
 * Throws `invalid_input` for a value JSON cannot hold (a non-finite number).
 *
 * @example
 * argsDigest({ b: 1, a: [true] }) === argsDigest({ a: [true], b: 1.0 }) // true
 */
export function argsDigest(args: Record<string, unknown> | undefined): string {
  let text: string | undefined;
  try {
    text = canonicalize(args ?? {});
  } catch (error) {
    throw new PlangateError(ErrorCode.InvalidInput, `the call's arguments cannot be canonicalized: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof text !== 'string') throw new PlangateError(ErrorCode.InvalidInput, "the call's arguments cannot be canonicalized");
  // One-shot hashing: no Hash object for each call (the digest is taken on every call that needs approval).
  return hash('sha256', text, 'hex');
}
