/**
 * Hot reload: watch the rules directory and the policy file, and reload
 * after a quiet period.
 *
 * How the cases operators meet are handled:
 *  - a file added, changed, removed → an event on the DIRECTORY (files are
 *    not watched one by one: a rename over a watched file loses the watch);
 *  - an editor's atomic save (temp file, rename over) → the temp file is a
 *    dotfile or not `*.yaml`, so it is ignored; the rename is one change;
 *  - a Kubernetes ConfigMap mount (`rules.yaml → ..data/rules.yaml`, the
 *    whole `..data` symlink swapped) → symlinks are followed, `..*` entries
 *    ignored, and every reload re-reads all files through the symlinks and
 *    compares their content (never mtimes);
 *  - a burst of writes → the reload waits until no event came for
 *    `debounceMs`, so a file being written in pieces is read once, complete
 *    (a writer that pauses longer than that mid-file should write atomically);
 *  - the directory missing at start, deleted or replaced → the watch is
 *    re-armed when it appears or changes identity;
 *  - anything missed (odd file systems, NFS) → a slow periodic rescan.
 * Reloads never overlap; every timer is unref'd.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isRuleFileName } from '../rules/read.js';

/** Quiet period after the last event before a reload. */
export const DEFAULT_DEBOUNCE_MS = 100;
/** Safety-net rescan interval. */
export const DEFAULT_RESCAN_MS = 30_000;
/**
 * While the rules directory is missing, how often to look for it. chokidar
 * watches the parent for a missing path, but sets that up only some time
 * after `ready`, so a directory created right away would be missed.
 */
export const DEFAULT_MISSING_PROBE_MS = 250;

/**
 * The reload outcomes after which the watcher looks once more: new content
 * was put in force (confirm nothing landed in the same clock tick), or it
 * was still being written. Not `failed`: one failed reload per change.
 */
const LOOK_AGAIN = new Set<unknown>(['loaded', 'unsettled']);

export interface WatchOptions {
  /** The rules directory (absolute or relative to the working directory). */
  rulesDir: string;
  /** The policy file (a policy.wasm or a bundle); its directory is watched for it. */
  policy?: string;
  /**
   * Reloads everything; called after a quiet period, never twice at once.
   * When it resolves to `{ outcome: 'loaded' }` or `'unsettled'`, the
   * watcher looks again one quiet period later: chokidar drops a change
   * whose mtime equals the previous one (writes within one clock tick), and
   * this catches it. After `'failed'` it waits for the next change (or the
   * slow rescan): files that stay bad are not read again and again.
   */
  reload: () => Promise<unknown>;
  debounceMs?: number;
  rescanMs?: number;
  missingProbeMs?: number;
  /** A watcher or reload error (the watch goes on). */
  onError?: (error: unknown) => void;
}

/** A running watch. */
export interface PolicyWatcher {
  /** Resolves once the file-system watch is in place. */
  ready: Promise<void>;
  /** Asks for a reload now (still debounced). */
  poke(): void;
  /** Stops watching and waits for a reload in progress. */
  close(): Promise<void>;
}

/**
 * Starts watching.
 *
 * @example
 * const w = watchPolicyInputs({ rulesDir: 'rules', policy: 'policies/build/policy.wasm', reload: () => runtime.load() });
 * await w.ready;
 * // … later
 * await w.close();
 */
export function watchPolicyInputs(options: WatchOptions): PolicyWatcher {
  const rulesDir = path.resolve(options.rulesDir);
  const policy = options.policy === undefined ? undefined : path.resolve(options.policy);
  const policyDir = policy === undefined ? undefined : path.dirname(policy);
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const rescanMs = options.rescanMs ?? DEFAULT_RESCAN_MS;
  const onError = options.onError ?? (() => undefined);

  let fsw: FSWatcher | undefined;
  let armedIdentity: string | undefined;
  let rearm = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  let probe: NodeJS.Timeout | undefined;

  const roots = [rulesDir, ...(policyDir ? [policyDir] : [])];
  const ignored = (p: string): boolean => {
    if (p === rulesDir || p === policyDir || p === policy) return false;
    // While a watched directory is missing, chokidar watches its parent for it to appear.
    if (roots.some((root) => root.startsWith(p.endsWith(path.sep) ? p : p + path.sep))) return false;
    const dir = path.dirname(p);
    if (dir === rulesDir && isRuleFileName(path.basename(p))) return false;
    return true;
  };

  async function identity(): Promise<string> {
    try {
      const st = await stat(rulesDir);
      return `${st.dev}:${st.ino}`;
    } catch {
      return 'missing';
    }
  }

  async function arm(): Promise<void> {
    const previous = fsw;
    fsw = undefined;
    await previous?.close();
    if (closed) return;
    armedIdentity = await identity();
    if (probe) clearInterval(probe);
    probe = undefined;
    if (armedIdentity === 'missing') {
      probe = setInterval(() => {
        void identity().then((id) => {
          if (id !== 'missing' && !closed) {
            rearm = true;
            schedule();
          }
        });
      }, options.missingProbeMs ?? DEFAULT_MISSING_PROBE_MS);
      probe.unref();
    }
    const targets = [rulesDir, ...(policyDir && policyDir !== rulesDir ? [policyDir] : [])];
    const next = watch(targets, { ignoreInitial: true, depth: 0, ignored, followSymlinks: true });
    fsw = next;
    next.on('all', (event, p) => {
      // The directory itself appeared, vanished or was replaced: watch it afresh.
      if ((p === rulesDir || p === policyDir) && (event === 'addDir' || event === 'unlinkDir')) rearm = true;
      schedule();
    });
    next.on('error', onError);
    await new Promise<void>((resolve) => next.once('ready', () => resolve()));
  }

  function schedule(delay = debounceMs): void {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, delay);
    timer.unref();
  }

  function fire(): void {
    timer = undefined;
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        await ready;
        if (rearm || (await identity()) !== armedIdentity) {
          rearm = false;
          await arm();
        }
        if (!closed) {
          const result = await options.reload();
          if (LOOK_AGAIN.has((result as { outcome?: unknown } | undefined)?.outcome)) again = true;
        }
      } catch (error) {
        onError(error);
      }
    })().finally(() => {
      running = undefined;
      if (again && !closed) {
        again = false;
        schedule();
      }
    });
  }

  // A pending debounce is left alone: the rescan must not cut a burst short.
  const rescan = setInterval(() => {
    if (!timer) schedule(0);
  }, rescanMs);
  rescan.unref();
  // Something may have changed between the caller's first load and the watch being in place.
  const ready = arm().then(() => schedule(), onError);

  return {
    ready,
    poke: () => schedule(),
    async close() {
      closed = true;
      clearInterval(rescan);
      if (probe) clearInterval(probe);
      if (timer) clearTimeout(timer);
      await ready;
      await running;
      await fsw?.close();
      fsw = undefined;
    },
  };
}
