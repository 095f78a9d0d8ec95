/**
 * Trace and span ids for the SDK, cut from a pool of random bytes.
 *
 * The SDK makes two ids for every span it is asked for, sampled or not: the
 * trace id before it asks the sampler (a ratio sampler decides by the trace
 * id) and the span id whatever the verdict (OpenTelemetry trace SDK
 * specification, "Sampling":
 * https://opentelemetry.io/docs/specs/otel/trace/sdk/#sampling). A decision
 * sampled out therefore still pays for two ids, and the SDK's own generator
 * (four or two `Math.random()` calls into a buffer, then a native hex
 * conversion, per id) was most of what it paid. This one fills a pool of
 * bytes from the operating system's random source once per several hundred
 * decisions and hex-encodes it once; an id is then a few string copies.
 *
 * The ids are what the SDK's generator makes (lowercase hex, 32 characters
 * for a trace, 16 for a span, random, never all zeros; an all-zero draw gets
 * its last byte set to 1, as the SDK does), and the SDK uses them as it uses
 * its own: the sampler sees the trace id the span then carries.
 */
import { randomFillSync } from 'node:crypto';

/** The SDK's id generator interface (`IdGenerator` of `@opentelemetry/sdk-trace`), met structurally. */
export interface IdGenerator {
  generateTraceId(): string;
  generateSpanId(): string;
}

/** Random bytes drawn at a time: 16 KiB, about 680 decisions' trace and span ids (a draw costs about 2 µs whatever its size, so a large one is nearly free per id). */
const POOL_BYTES = 16_384;
/**
 * Hex characters copied per slice. Below V8's 13-character minimum for a
 * sliced string, so an id that is kept (a refusal's audit event names its
 * trace) holds only its own characters, not the pool's.
 */
const CHUNK = 8;

/**
 * An id generator for the SDK (`new NodeSDK({ idGenerator })`).
 *
 * @example
 * const ids = pooledIdGenerator();
 * ids.generateTraceId(); // '4bf92f3577b34da6a3ce929d0e0e4736'
 */
export function pooledIdGenerator(fill: (into: Uint8Array) => unknown = randomFillSync): IdGenerator {
  const bytes = new Uint8Array(POOL_BYTES);
  let hex = '';
  let at = 0;

  function take(chars: number): string {
    if (at + chars > hex.length) {
      fill(bytes);
      hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
      at = 0;
    }
    let id = '';
    for (let i = 0; i < chars; i += CHUNK) id += hex.slice(at + i, at + i + CHUNK);
    const zero = allZero(bytes, at / 2, chars / 2);
    at += chars;
    // An all-zero id is invalid (W3C Trace Context); like the SDK, set its last byte to 1.
    return zero ? `${id.slice(0, -2)}01` : id;
  }

  return {
    generateTraceId: () => take(32),
    generateSpanId: () => take(16),
  };
}

function allZero(bytes: Uint8Array, from: number, length: number): boolean {
  for (let i = from; i < from + length; i++) if (bytes[i] !== 0) return false;
  return true;
}
