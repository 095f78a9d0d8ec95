// Types of the parts of opa.mjs that TypeScript (tests and benches) calls.
/** Writes the WASM build's capabilities (the JS SDK's builtins, the pinned OPA's language features) into `dir`; returns the file. */
export function writeCapabilities(opa: { bin: string }, dir: string): string;
