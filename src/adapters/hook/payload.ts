/**
 * A hook's payload read: bounded in size and nesting, JSON, one host's
 * shape (`--format`, else recognised), with the contract that answers it.
 * What cannot be read is answered with a refusal in a blocking shape.
 */
import { toError } from '../../core/errors.js';
import { checkJson } from '../../core/json.js';
import { HOST_NAMES, type HookReply, type HostContract } from './contract.js';
import { claudeDeny } from './hosts/claude-code.js';
import { hostNamed, recognise } from './hosts/index.js';
import { badHookInput } from './options.js';

/** Largest payload read, in bytes. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

/**
 * The exit code of a refusal when the host is not known (no `--format`, a
 * payload of no one host's shape): 2, which every host that runs a command
 * hook treats as a block, with the reason on stderr; stdout carries Claude
 * Code's deny as well.
 */
export const UNKNOWN_HOST_EXIT = 2;

/** A payload read, with the contract that answers it. */
export interface HookPayload {
  contract: HostContract;
  doc: Record<string, unknown>;
}

export function refusedText(message: string): string {
  return `plangate could not decide this call, so it is refused: ${message}`;
}

/**
 * The refusal when the host is not known: exit 2 with the reason on stderr,
 * and Claude Code's deny on stdout.
 *
 * @example
 * unknownHostRefusal('the payload is not JSON').exitCode // 2
 */
export function unknownHostRefusal(message: string): HookReply {
  const reason = refusedText(message);
  return { stdout: `${JSON.stringify(claudeDeny(reason))}\n`, stderr: `${reason}\n`, exitCode: UNKNOWN_HOST_EXIT };
}

/**
 * The contract named by `format`, or an error naming the hosts there are.
 *
 * @example
 * contractNamed('claude-code').name // 'claude-code'
 */
export function contractNamed(format: string): HostContract {
  const contract = hostNamed(format);
  if (!contract) throw badHookInput(`--format: "${format}" is not a host plangate answers (${HOST_NAMES.join(', ')})`);
  return contract;
}

/**
 * Reads a payload and picks its contract (`format`, else the payload's
 * shape). Never throws: what cannot be read is the reply that refuses it.
 *
 * @example
 * const p = readHookPayload(stdin, 'claude-code'); if ('exitCode' in p) write(p); else decide(p);
 */
export function readHookPayload(text: string, format?: string): HookPayload | HookReply {
  let contract: HostContract | undefined;
  try {
    if (format !== undefined) contract = contractNamed(format);
  } catch (error) {
    return unknownHostRefusal(toError(error).message);
  }
  let doc: unknown;
  try {
    if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) throw badHookInput(`the payload is larger than ${MAX_PAYLOAD_BYTES} bytes`);
    try {
      doc = JSON.parse(text);
    } catch {
      throw badHookInput('the payload is not JSON');
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw badHookInput('the payload is not a JSON object');
    // Bounded nesting and well-formed Unicode, as every JSON body plangate reads.
    checkJson(doc, 'plangate hook: the payload');
  } catch (error) {
    const message = toError(error).message;
    return contract ? contract.refuse(refusedText(message)) : unknownHostRefusal(message);
  }
  const payload = doc as Record<string, unknown>;
  contract ??= recognise(payload);
  if (!contract) return unknownHostRefusal(`plangate hook: the payload is not recognisably one host's; name the host with --format (${HOST_NAMES.join(', ')})`);
  return { contract, doc: payload };
}
