/**
 * The `approvals` section of the rule files → its normalized form (the
 * policy's `data.plangate.rules.approvals`), with the check that spans
 * files: a scope's rule defined twice. What a rule means is the policy's
 * (policies/plangate/approval.rego).
 */
import type { ApprovalRule } from '../core/approvals.js';
import type { Problem } from '../core/errors.js';
import { isValidId } from '../core/threads.js';
import type { RulesData, ToolClass } from '../core/types.js';
import { describePath, isRecord, toPointer, type ParsedRuleFile, type PathSegment } from './parse.js';

/**
 * Merges the `approvals` sections of the files (in the order given); absent
 * when no file has one. Like `normalizeRules`, it runs on schema-invalid
 * files too; the result is only meaningful without problems.
 *
 * @example
 * normalizeApprovals([parsed]).approvals?.workspace // { tools: ['github.merge_pull_request'], source: 'a.yaml:1:14' }
 */
export function normalizeApprovals(files: readonly ParsedRuleFile[]): { approvals?: NonNullable<RulesData['approvals']>; problems: Problem[] } {
  const out: NonNullable<RulesData['approvals']> = { crews: Object.create(null), agents: Object.create(null) };
  const problems: Problem[] = [];
  const claimed = new Map<string, string>();
  let seen = false;
  for (const f of files) {
    const doc = isRecord(f.data) ? f.data : {};
    if (!isRecord(doc['approvals'])) continue;
    seen = true;
    const section = doc['approvals'];
    const where = (path: PathSegment[]): string => {
      const { line, col } = f.locate(path, 'key');
      return `${f.file}:${line}:${col}`;
    };
    const claim = (what: string, path: PathSegment[], say: (first: string) => string): boolean => {
      const first = claimed.get(what);
      if (first === undefined) {
        claimed.set(what, where(path));
        return true;
      }
      problems.push({ file: f.file, ...f.locate(path, 'key'), path: toPointer(path), message: `${describePath(f.data, path)}: ${say(first)}` });
      return false;
    };
    if (Object.hasOwn(section, 'workspace')) {
      const path = ['approvals', 'workspace'];
      if (claim('workspace', path, (first) => `the workspace approvals rule is already defined at ${first}`)) {
        out.workspace = toApprovalRule(section['workspace'], where(path));
      }
    }
    for (const [scope, kind] of [['crews', 'crew'], ['agents', 'agent']] as const) {
      const rules = isRecord(section[scope]) ? section[scope] : {};
      for (const id of Object.keys(rules)) {
        if (!isValidId(id)) continue; // the schema reports it
        const path = ['approvals', scope, id];
        if (claim(`${kind}:${id}`, path, (first) => `${kind} "${id}" already has an approvals rule at ${first}`)) {
          out[scope][id] = toApprovalRule(rules[id], where(path));
        }
      }
    }
  }
  if (!seen) return { problems };
  const { workspace, crews, agents } = out;
  return { approvals: workspace ? { workspace, crews, agents } : { crews, agents }, problems };
}

/** A validated rule with its source; only the known fields are kept. */
function toApprovalRule(value: unknown, source: string): ApprovalRule {
  const r = isRecord(value) ? value : {};
  const approvers = isRecord(r['approvers']) ? r['approvers'] : undefined;
  return {
    ...(Array.isArray(r['tools']) ? { tools: r['tools'] as string[] } : {}),
    ...(Array.isArray(r['classes']) ? { classes: r['classes'] as ToolClass[] } : {}),
    ...(isRecord(r['when']) ? { when: r['when'] as ApprovalRule['when'] } : {}),
    ...(approvers ? { approvers: toApprovers(approvers) } : {}),
    ...(typeof r['windowMin'] === 'number' ? { windowMin: r['windowMin'] } : {}),
    source,
  };
}

/**
 * The rule's approvers: its roles and names (one set, the other is empty),
 * or neither (the policy's default, the approver role), and whether the
 * person at the agent's MCP client may approve.
 */
function toApprovers(a: Record<string, unknown>): NonNullable<ApprovalRule['approvers']> {
  const named = Array.isArray(a['roles']) || Array.isArray(a['names']);
  return {
    ...(named ? { roles: (a['roles'] as string[] | undefined) ?? [], names: (a['names'] as string[] | undefined) ?? [] } : {}),
    ...(typeof a['client'] === 'boolean' ? { client: a['client'] } : {}),
  };
}
