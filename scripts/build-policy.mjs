// npm run build:policy — compiles policies/plangate to policies/build/policy.wasm
// with the pinned OPA CLI, and records its sha256 and the OPA version.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_DIR, ENTRYPOINTS, OPA_VERSION, buildWasm, findOpa } from './opa.mjs';

const opa = findOpa();
if (!opa) {
  console.error(`build:policy needs the OPA CLI ${OPA_VERSION}: go install github.com/open-policy-agent/opa@${OPA_VERSION}`);
  process.exit(1);
}
if (opa.version !== OPA_VERSION.replace(/^v/, '')) {
  console.error(`build:policy: found opa ${opa.version}, the pinned version is ${OPA_VERSION}`);
  process.exit(1);
}
const wasm = buildWasm(opa);
mkdirSync(BUILD_DIR, { recursive: true });
writeFileSync(join(BUILD_DIR, 'policy.wasm'), wasm);
const sha256 = createHash('sha256').update(wasm).digest('hex');
const info = { opa: OPA_VERSION, entrypoints: ENTRYPOINTS, sha256, bytes: wasm.length };
writeFileSync(join(BUILD_DIR, 'policy.json'), JSON.stringify(info, null, 2) + '\n');
console.log(`policies/build/policy.wasm ${wasm.length} bytes sha256 ${sha256}`);
