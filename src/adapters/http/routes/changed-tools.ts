/**
 * The pinned MCP tools refused as changed that no one has pinned again —
 * the console's rules page lists them. An operator's view: it reads the
 * rules (their pins) and the audit (who was refused).
 *
 *   GET /v1/mcp/changed-tools   operator   { tools, repin, rulesDir, revision, scanned, limitReached }
 *
 * The gateway (`plangate mcp`) records each refusal as `ToolChangedBlocked`
 * with the digests pinned and seen; this process reads them back from the
 * audit they share, and the pins from the rules in force here (the same
 * loader, hot-reloaded), so a `plangate pin` into this rules directory
 * clears the entry.
 */
import { MAX_AUDIT_LIMIT } from '../../../audit/query.js';
import { ErrorCode, PlangateError } from '../../../core/errors.js';
import { changedTools, repinCommand } from '../../../main/changed-tools.js';
import type { HttpDeps } from '../deps.js';
import { HttpCode, HttpError } from '../errors.js';
import type { Router } from '../router.js';

export function registerChangedToolRoutes(router: Router, deps: HttpDeps): void {
  router.add({
    method: 'GET',
    path: '/v1/mcp/changed-tools',
    roles: ['operator'],
    body: 'none',
    async handle() {
      const r = deps.rules.inForce();
      if (!r) throw new PlangateError(ErrorCode.PolicyUnavailable, 'no rules are in force: plangate is failing open (see /health), so no pin can be compared');
      if (!deps.audit) throw new HttpError(HttpCode.AuditUnreadable, 'the audit sink in use cannot be read back');
      // The latest refusals: a tool refused long ago and since called by no one is as changed as it was, but its entry is the oldest.
      const events = await deps.audit.query({ type: ['ToolChangedBlocked'], limit: MAX_AUDIT_LIMIT });
      return {
        body: {
          tools: changedTools(events, r.data.mcp?.pins ?? {}),
          repin: repinCommand(r.dir),
          rulesDir: r.dir,
          revision: r.revision,
          scanned: events.length,
          limitReached: events.length === MAX_AUDIT_LIMIT,
        },
      };
    },
  });
}
