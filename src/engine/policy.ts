/**
 * The compiled policy: load policy.wasm through @open-policy-agent/opa-wasm,
 * hand it the rules as its data document once, and evaluate its entrypoints.
 * The decision itself lives in Rego; this module only moves JSON in and out.
 */
import { readFile } from 'node:fs/promises';
import * as sdk from '@open-policy-agent/opa-wasm';
import { ErrorCode, PlangateError, toError } from '../core/errors.js';
import { withIndexes } from '../core/rules-index.js';
import { rawEvaluator, type RawEvaluate } from './abi.js';
import { seatSettings, type SeatSettings } from './seat-settings.js';
import type {
  Decision,
  Explanation,
  EffectivePlanningSettings,
  EffectiveSettings,
  HoldAllowed,
  HotAnswer,
  HoldFact,
  HoldKind,
  Lineage,
  PolicyInput,
  QuotaCounts,
  QuotaKind,
  QuotaVerdict,
  RulesData,
  SettledAnswer,
} from '../core/types.js';

type LoadedPolicy = sdk.LoadedPolicy;

/**
 * The SDK's synchronous loader. Its ESM entry (src/index.mjs) exports it on
 * the default object only, while its typings declare it a named export.
 */
const loadPolicySync = (sdk as unknown as { default: { loadPolicySync: typeof sdk.loadPolicySync } }).default.loadPolicySync;

/** The committed, prebuilt policy. */
export const DEFAULT_WASM_URL = new URL('../../policies/build/policy.wasm', import.meta.url);

/** Entrypoints compiled into policy.wasm (see scripts/opa.mjs). */
export const ENTRYPOINTS = {
  /** The hot answer: what a gate acts on. */
  decide: 'plangate/decide',
  /** The explanation: the same answer with every candidate and check verdict. */
  decision: 'plangate/decision',
  effective: 'plangate/effective',
  planning: 'plangate/planning_settings',
  holdAllowed: 'plangate/hold_allowed',
  quota: 'plangate/quota',
  approvalPossible: 'plangate/approval_possible',
  approverAllowed: 'plangate/approver_allowed',
  /** What the approvals on record decide, once decide's first answer asks for them. */
  approvalSettled: 'plangate/approval_settled',
} as const;

/** Linear memory: 5 MiB to start, capped at 256 MiB so a runaway input cannot take the host down. */
const MEMORY = { initial: 80, maximum: 4096 };

/**
 * A policy compiled with `WebAssembly.compile` (a `WebAssembly.Module`; the
 * type is opaque here because the Node 20 typings do not declare WebAssembly).
 */
export type CompiledPolicy = object;

/** What the gate needs from the engine. */
export interface Evaluator {
  /** Decides one call from its gathered facts (the hot entrypoint). */
  decide(input: PolicyInput): Decision;
  /** The same decision with every candidate and every check's verdict (the explain entrypoint). */
  explain(input: PolicyInput): Explanation;
  /** The plan-required settings in force for a seat. */
  effective(seat: Lineage): EffectiveSettings;
  /** The planning-gate settings in force for a seat (absent from an evaluator without a policy). */
  planning?(seat: Lineage): EffectivePlanningSettings;
  /** Whether a hold of `kind` may be placed on the seat, given its active hold (absent without a policy). */
  holdAllowed?(input: { agent: Lineage; kind: HoldKind; hold?: HoldFact }): HoldAllowed;
  /** A seat's quota of one kind of write, and with counts whether one more is over it (absent without a policy). */
  quota?(input: { kind: QuotaKind; seat: string; now: number; counts?: QuotaCounts }): QuotaVerdict;
  /** Whether any approvals rule, at any scope, could need approval for the call (absent without a policy). */
  approvalPossible?(input: { agent: { id: string }; call: { tool: string; annotations?: object } }): boolean;
  /**
   * What the approvals on record (`input.approval`) decide of a call whose
   * first answer asked for them: the fields of the answer they can change,
   * without evaluating the checks in front of the human gate again (absent
   * without a policy; then the gate decides again in full).
   */
  approvalSettled?(input: PolicyInput): SettledAnswer;
  /** Whether a principal may answer an approval request with these approvers (absent without a policy). */
  approverAllowed?(input: { principal: { role: string; name: string }; request: { approvers: { roles: string[]; names: string[] } } }): boolean;
}

/** One loaded policy with one rules version. Not re-entrant: one evaluation at a time (JS is single-threaded). */
export class Engine implements Evaluator {
  /** The SDK's instance evaluated with less copying (see ./abi.ts). */
  private readonly run: RawEvaluate;
  /** The seats' described settings, asked of the policy once per seat. */
  private readonly described: SeatSettings;

  private constructor(
    private readonly policy: LoadedPolicy,
    /** An identifier of the rules this engine was given (e.g. their sha256). */
    readonly rulesRevision: string,
  ) {
    this.run = rawEvaluator(policy);
    this.described = seatSettings((seat) => this.effective(seat));
  }

  /**
   * Loads policy.wasm and sets the rules as its data document.
   *
   * @example
   * const engine = await Engine.load({ data: loaded.data, rulesRevision: loaded.revision });
   * engine.decide(input).allowed;
   */
  static async load(options: {
    data: RulesData;
    rulesRevision?: string;
    /** The policy: bytes, a path, or a module already compiled (hot reload compiles each policy once). */
    wasm?: Uint8Array | URL | string | CompiledPolicy;
    /** Linear memory in 64 KiB pages (default 80 to start, 4096 at most); it grows as evaluations need. */
    memory?: { initial: number; maximum: number };
  }): Promise<Engine> {
    const source = await readWasm(options.wasm ?? DEFAULT_WASM_URL);
    let policy: LoadedPolicy;
    try {
      // Compiled off the main thread, then instantiated synchronously: the SDK's asynchronous
      // loadPolicy asks `instanceof Response`, which loads Node's fetch implementation (undici),
      // about 20 ms of a hook process's start for a class plangate never passes.
      const module = source instanceof Uint8Array ? await webAssembly().compile(source) : source;
      policy = loadPolicySync(module as Parameters<typeof loadPolicySync>[0], options.memory ?? MEMORY);
    } catch (thrown) {
      throw new PlangateError(ErrorCode.PolicyUnavailable, `policy.wasm cannot be loaded: ${toError(thrown).message}`, [], { cause: thrown });
    }
    for (const name of Object.values(ENTRYPOINTS)) {
      if (!(name in policy.entrypoints)) {
        throw new PlangateError(ErrorCode.PolicyUnavailable, `policy.wasm has no entrypoint ${name}`);
      }
    }
    try {
      policy.setData({ plangate: { rules: withIndexes(options.data) } });
    } catch (thrown) {
      throw new PlangateError(ErrorCode.PolicyUnavailable, `the rules cannot be loaded into the policy: ${toError(thrown).message}`, [], { cause: thrown });
    }
    return new Engine(policy, options.rulesRevision ?? 'unversioned');
  }

  decide(input: PolicyInput): Decision {
    const result = this.evaluate(ENTRYPOINTS.decide, input);
    if (!isAnswer(result) || typeof result.settings !== 'object' || result.settings === null || typeof input.call?.tool !== 'string') {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, 'the policy returned no decision for this input');
    }
    // The answer is this call's own object. It gets the call's tool and seat, which the hot answer
    // does not repeat, and its settings described (they are values; a policy built before the hot
    // answer gave values answers them described already).
    const decision = result as unknown as Decision;
    decision.tool = input.call.tool;
    decision.agent = input.agent.id;
    decision.agentKnown = input.agent.known === true;
    const settings = (result as unknown as HotAnswer).settings;
    if (typeof settings.mode !== 'object') decision.settings = this.described(input.agent, settings);
    return decision;
  }

  explain(input: PolicyInput): Explanation {
    const result: unknown = this.evaluate(ENTRYPOINTS.decision, input);
    if (!isAnswer(result) || !Array.isArray((result as { candidates?: unknown }).candidates)) {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, 'the policy returned no explanation for this input');
    }
    return result as unknown as Explanation;
  }

  effective(seat: Lineage): EffectiveSettings {
    const result = this.evaluate(ENTRYPOINTS.effective, { agent: seat });
    if (!result || typeof result !== 'object' || !('mode' in result)) {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, 'the policy returned no settings for this seat');
    }
    return result as EffectiveSettings;
  }

  planning(seat: Lineage): EffectivePlanningSettings {
    const result = this.evaluate(ENTRYPOINTS.planning, { agent: seat });
    if (!result || typeof result !== 'object' || !('enabled' in result)) {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, 'the policy returned no planning-gate settings for this seat');
    }
    return result as EffectivePlanningSettings;
  }

  holdAllowed(input: { agent: Lineage; kind: HoldKind; hold?: HoldFact }): HoldAllowed {
    const result = this.evaluate(ENTRYPOINTS.holdAllowed, input);
    if (!result || typeof result !== 'object' || typeof (result as HoldAllowed).allowed !== 'boolean') {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, 'the policy returned no answer on placing a hold');
    }
    return result as HoldAllowed;
  }

  quota(input: { kind: QuotaKind; seat: string; now: number; counts?: QuotaCounts }): QuotaVerdict {
    const result = this.evaluate(ENTRYPOINTS.quota, input);
    if (!result || typeof result !== 'object' || typeof (result as QuotaVerdict).allowed !== 'boolean' || typeof (result as QuotaVerdict).limits !== 'object') {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, `the policy returned no quota for ${String(input.kind)}`);
    }
    return result as QuotaVerdict;
  }

  approvalPossible(input: { agent: { id: string }; call: { tool: string; annotations?: object } }): boolean {
    return this.evaluate(ENTRYPOINTS.approvalPossible, input) === true;
  }

  approvalSettled(input: PolicyInput): SettledAnswer {
    const result = this.evaluate(ENTRYPOINTS.approvalSettled, input);
    const approval = (result as Partial<SettledAnswer> | undefined)?.approval;
    if (!isAnswerPart(result) || typeof approval !== 'object' || approval === null || typeof approval.status !== 'string') {
      throw new PlangateError(ErrorCode.PolicyResultInvalid, 'the policy returned no approval verdict for this input');
    }
    return result as SettledAnswer;
  }

  approverAllowed(input: { principal: { role: string; name: string }; request: { approvers: { roles: string[]; names: string[] } } }): boolean {
    return this.evaluate(ENTRYPOINTS.approverAllowed, input) === true;
  }

  /** Bytes of linear memory the policy holds (it never shrinks). */
  get memoryBytes(): number {
    return this.policy.mem.buffer.byteLength;
  }

  /** Evaluates an entrypoint and returns its value, or undefined when the policy leaves it undefined. */
  evaluate(entrypoint: string, input: object): unknown {
    let resultSet: unknown;
    try {
      resultSet = this.run(input, entrypoint);
    } catch (thrown) {
      throw evaluationFailure(thrown);
    }
    if (!Array.isArray(resultSet) || resultSet.length === 0) return undefined;
    return (resultSet[0] as { result?: unknown }).result;
  }
}

/** The WebAssembly namespace (the Node 20 typings do not declare it). */
function webAssembly(): { compile(bytes: Uint8Array): Promise<CompiledPolicy> } {
  return (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledPolicy> } }).WebAssembly;
}

async function readWasm(source: Uint8Array | URL | string | CompiledPolicy): Promise<Uint8Array | CompiledPolicy> {
  if (source instanceof Uint8Array) return source;
  if (typeof source !== 'string' && !(source instanceof URL)) return source; // already compiled
  try {
    return await readFile(source);
  } catch (thrown) {
    throw new PlangateError(ErrorCode.PolicyUnavailable, `policy.wasm cannot be read: ${toError(thrown).message}`, [], { cause: thrown });
  }
}

/** Whether a hot answer or an explanation has the fields every answer has. */
function isAnswer(value: unknown): value is HotAnswer {
  return isAnswerPart(value) && typeof (value as HotAnswer).class === 'string';
}

/** Whether an answer, or the part the approvals settle, says allowed or carries its refusal's code and instruction. */
function isAnswerPart(value: unknown): value is Pick<HotAnswer, 'allowed' | 'code' | 'message'> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as HotAnswer).allowed === 'boolean' &&
    // A refusal always carries its code and instruction.
    ((value as HotAnswer).allowed || (typeof (value as HotAnswer).code === 'string' && typeof (value as HotAnswer).message === 'string'))
  );
}

/**
 * What a failed evaluation is. A trap of the WebAssembly machine (out of
 * bounds, out of memory, unreachable) means the policy is broken:
 * `policy_unavailable`. A built-in function refusing a value (OPA's
 * runtime errors, such as `strings: get uint failed` for a number too large
 * to format) means this input cannot be evaluated, while the policy serves
 * every other: `invalid_input`, the caller's error, which a client must not
 * retry as an outage.
 *
 * @example
 * evaluationFailure('strings: get uint failed').code // 'invalid_input'
 */
export function evaluationFailure(thrown: unknown): PlangateError {
  const message = toError(thrown).message;
  // A trap is a WebAssembly.RuntimeError (the DOM lib's type is not in this build: matched by name).
  if ((thrown instanceof Error && thrown.name === 'RuntimeError') || thrown instanceof RangeError) {
    return new PlangateError(ErrorCode.PolicyUnavailable, `policy evaluation failed: ${message}`, [], { cause: thrown });
  }
  return new PlangateError(ErrorCode.InvalidInput, `the policy cannot evaluate this input: ${message}`, [], { cause: thrown });
}
