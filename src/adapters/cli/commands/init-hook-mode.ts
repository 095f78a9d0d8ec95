/**
 * The last step of `plangate init --hook`: the seat the host acts as must be
 * under a plan-required mode, or the hook asks plangate before every call
 * and every call goes through. Where no rule sets a mode for the seat (the
 * default, `off`), an agent rule with mode `side_effects` is added to the
 * rules; where a rule sets `off` or shadow mode on purpose, it is kept and
 * said out loud; where the rules cannot be read, plangate would fail open,
 * and that is said too. Either way the seat's settings in force are printed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { EffectiveSettings } from '../../../core/decision.js';
import { NEW_RULE_FILE, setPlanRule } from '../../../rules/edit.js';
import { createMemoryAuditSink } from '../../../audit/memory.js';
import { resolvePaths, storeKind } from '../../../main/config.js';
import { openPlangate, type Plangate } from '../../../main/open.js';
import type { Io } from '../io.js';
import { describeSeat, ungatedWarning } from '../seat-mode.js';
import type { GlobalOptions } from '../main.js';

/** The mode given to a seat no rule names: every side effect of the host needs a plan. */
export const INIT_HOOK_MODE = 'side_effects';

/**
 * plangate on the rules and store the hook will use, to ask a seat's
 * settings (its crews are in the store). Nothing is created for it: a store
 * file not there yet holds no org (an empty one in memory stands in), and
 * nothing is audited.
 */
function openForSettings(cmd: Command, io: Io): Promise<Plangate> {
  const g = cmd.optsWithGlobals<GlobalOptions>();
  const paths = resolvePaths({ ...(g.rules ? { rules: g.rules } : {}), ...(g.store ? { store: g.store } : {}), ...(g.policy ? { policy: g.policy } : {}) }, io.env);
  const store = storeKind(paths.store) === 'postgres' || existsSync(paths.store) ? paths.store : ':memory:';
  return openPlangate({ rules: paths.rules, store, ...(paths.policy ? { policy: paths.policy } : {}), auditSink: createMemoryAuditSink(), env: io.env, log: (text) => io.err(text) });
}

/**
 * Puts `seat` under plan-required where nothing does, and prints what it
 * runs under: a mode of `off` or shadow mode set by a rule is kept, with a
 * warning. Returns false when plangate would fail open with these rules
 * (the caller exits non-zero so a script notices).
 *
 * @example
 * await ensureSeatGated('0xDEV', 'rules', cmd, io) // "created rules/plan-required.yaml: plan-required mode side_effects for 0xDEV"
 */
export async function ensureSeatGated(seat: string, rulesDir: string, cmd: Command, io: Io, shown: (file: string) => string): Promise<boolean> {
  const pg = await openForSettings(cmd, io);
  try {
    const failOpen = pg.status().failOpen;
    if (failOpen) {
      io.out(`warning: plangate fails open with these rules (${failOpen.reason}): no call of this host is refused for want of a plan until they load; plangate status says why`);
      return false;
    }
    let settings = await pg.gate.settingsFor(seat);
    if (settings.mode.value === 'off' && settings.mode.scope === 'default') {
      // The edit writes to a file that defines plan-required rules already, else to a new NEW_RULE_FILE.
      const fresh = !existsSync(join(rulesDir, NEW_RULE_FILE));
      const edit = await setPlanRule(rulesDir, { kind: 'agent', id: seat }, { mode: INIT_HOOK_MODE }, { newFileUnlessPlanRequired: true });
      const file = edit.file ?? NEW_RULE_FILE;
      io.out(`${fresh && file === NEW_RULE_FILE ? 'created' : 'updated'} ${shown(join(rulesDir, file))}: plan-required mode ${INIT_HOOK_MODE} for ${seat} (no rule set a mode for it, so every call would have gone through)`);
      await pg.reload();
      settings = await pg.gate.settingsFor(seat);
    }
    report(seat, settings, io);
    return true;
  } finally {
    await pg.close();
  }
}

/** The seat's settings in force, and a warning when they refuse nothing for want of a plan. */
function report(seat: string, settings: EffectiveSettings, io: Io): void {
  io.out(describeSeat(seat, settings));
  // Kept as the rules set it: a warning, since the hook then asks before every call and refuses none for want of a plan.
  const warning = ungatedWarning(seat, settings);
  if (warning) io.out(`warning: ${warning}`);
}
