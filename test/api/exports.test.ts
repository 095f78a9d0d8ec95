/**
 * The public API (src/index.ts) exports what a user composes and the named
 * failure modes, not the runtime's internals.
 */
import { describe, expect, it } from 'vitest';
import * as api from '../../src/index.js';

describe('the public API', () => {
  it('exports the pieces a user composes and how each check fails', () => {
    for (const name of ['openPlangate', 'createGate', 'Engine', 'createMemoryStore', 'openSqliteStore', 'openPostgresStore', 'createJsonlAuditSink', 'loadRules', 'PlangateError', 'ErrorCode']) {
      expect(api, name).toHaveProperty(name);
    }
    expect(api.PLAN_REQUIRED_ON_STORE_FAILURE).toBe('fail_open');
    expect(api.HOLD_ON_STORE_FAILURE).toBe('fail_closed');
    expect(api.UNREAD_HOLDS_ON_STORE_FAILURE).toBe('fail_closed');
    expect(api.ErrorCode.StoreUnavailable).toBe('store_unavailable');
  });

  it('does not export the decisions built without the policy', () => {
    for (const name of ['withoutPolicy', 'failOpenSettings', 'failOpenDecision', 'heldWhileFailing', 'unreadHoldsWhileFailing']) expect(api, name).not.toHaveProperty(name);
  });
});
