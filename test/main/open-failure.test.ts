/**
 * A start that fails part way (here, the rules directory cannot be
 * watched) leaves nothing open behind it: the audit sink, like the store it
 * opened, is closed before the error reaches the caller.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { AuditSink } from '../../src/audit/port.js';

vi.mock('../../src/main/watch.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/main/watch.js')>()),
  watchPolicyInputs: () => ({ ready: Promise.reject(new Error('the rules directory cannot be watched')), close: async () => {} }),
}));

const { openPlangate } = await import('../../src/main/open.js');
const { tempDir } = await import('../cli/run.js');

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'rules');

describe('openPlangate, failing part way', () => {
  it('closes the audit sink and the store it opened, and passes the error on', async () => {
    const closed: string[] = [];
    const audit: AuditSink = { record: () => {}, close: async () => void closed.push('audit') };
    const store = join(tempDir('plangate-open-'), 'store.db');
    await expect(openPlangate({ rules: EXAMPLES, store, auditSink: audit, watch: true, log: () => {} })).rejects.toThrow(/cannot be watched/);
    expect(closed).toEqual(['audit']);
  });
});
