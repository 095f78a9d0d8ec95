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
 * conversion, per id) was about half of what it paid. This one fills a pool of
 * bytes from the operating system's random source once per several hundred
 * decisions; an id is then its bytes spelt in hex, in plain JavaScript.
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

/** Random bytes drawn at a time: 16 KiB, about 680 decisions' trace and span ids (a draw costs about 2 µs whatever its size). */
const POOL_BYTES = 16_384;

/** The hex digits' character codes. */
const DIGIT = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/**
 * An id generator for the SDK (`new NodeSDK({ idGenerator })`).
 *
 * @example
 * const ids = pooledIdGenerator();
 * ids.generateTraceId(); // '4bf92f3577b34da6a3ce929d0e0e4736'
 */
export function pooledIdGenerator(fill: (into: Uint8Array) => unknown = randomFillSync): IdGenerator {
  const pool = new Uint8Array(POOL_BYTES);
  let at = POOL_BYTES;

  /** The offset of the next `n` unused bytes, drawing a new pool when this one is spent. */
  function take(n: number): number {
    if (at + n > POOL_BYTES) {
      fill(pool);
      at = 0;
    }
    // An all-zero id is invalid (W3C Trace Context); like the SDK, set its last byte to 1.
    if (allZero(pool, at, n)) pool[at + n - 1] = 1;
    const from = at;
    at += n;
    return from;
  }

  return {
    generateTraceId() {
      const i = take(16);
      return hex8(pool, i) + hex8(pool, i + 8);
    },
    generateSpanId: () => hex8(pool, take(8)),
  };
}

function allZero(bytes: Uint8Array, from: number, length: number): boolean {
  for (let i = from; i < from + length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * Eight bytes as 16 hex characters: one flat string of its own (it holds no
 * other string alive), from `String.fromCharCode` with every code an argument,
 * a few times faster than a buffer's hex conversion for so short a string.
 */
function hex8(p: Uint8Array, i: number): string {
  const a = p[i]!, b = p[i + 1]!, c = p[i + 2]!, d = p[i + 3]!, e = p[i + 4]!, f = p[i + 5]!, g = p[i + 6]!, h = p[i + 7]!;
  return String.fromCharCode(
    DIGIT[a >> 4]!, DIGIT[a & 15]!, DIGIT[b >> 4]!, DIGIT[b & 15]!, DIGIT[c >> 4]!, DIGIT[c & 15]!, DIGIT[d >> 4]!, DIGIT[d & 15]!,
    DIGIT[e >> 4]!, DIGIT[e & 15]!, DIGIT[f >> 4]!, DIGIT[f & 15]!, DIGIT[g >> 4]!, DIGIT[g & 15]!, DIGIT[h >> 4]!, DIGIT[h & 15]!,
  );
}
