/**
 * Tasks (MCP 2025-11-25, "Tasks"; the SDK's experimental task types): a
 * task-augmented `tools/call` is decided like any call (calls.ts) and goes
 * upstream only when allowed; the task the upstream creates is then this
 * session's. `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list`
 * reach only the tasks this session created, whatever id a client names:
 * an upstream that does not keep its tasks apart per session (or is shared
 * by every session, over Streamable HTTP) is not asked about another's.
 * A call the gate refuses (or plangate's own tool) becomes a task of the
 * gateway's, completed at once with the refusal as its result: the
 * upstream never sees it.
 */
import { randomUUID } from 'node:crypto';
import {
  CancelTaskRequestSchema,
  ErrorCode as RpcCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateTaskResult,
  type Notification,
  type Task,
  type TaskCreationParams,
} from '@modelcontextprotocol/sdk/types.js';
import { NAMESPACE_SEPARATOR } from './names.js';
import type { GatewaySession } from './session.js';
import type { UpstreamLink } from './upstream.js';

/** Where a task the client knows lives: an upstream's (under its own id) or the gateway's (with its result). */
type Held = { link: UpstreamLink; id: string } | { task: Task; result: CallToolResult };

/** Most tasks one session keeps track of; the oldest are forgotten first. */
export const MAX_SESSION_TASKS = 1000;

/** What the SDK's own server answers for a task it does not have. */
const NOT_FOUND = 'Failed to retrieve task: Task not found';

/**
 * The tasks of one session, by the id the client knows them by.
 *
 * @example
 * session.tasks.adopt(link, createTaskResult) // the id the client is shown
 */
export class SessionTasks {
  private readonly held = new Map<string, Held>();

  constructor(private readonly session: GatewaySession) {}

  /** The id the client is shown for an upstream's task: the upstream's own, with its namespace when there are several. */
  private exposed(link: UpstreamLink, id: string): string {
    return this.session.namespaced ? `${link.spec.name}${NAMESPACE_SEPARATOR}${id}` : id;
  }

  private keep(id: string, held: Held): void {
    this.held.set(id, held);
    for (const old of this.held.keys()) {
      if (this.held.size <= MAX_SESSION_TASKS) break;
      this.held.delete(old);
    }
  }

  /** An upstream created a task for this session's call: it is this session's, under the id returned. */
  adopt(link: UpstreamLink, result: CreateTaskResult): CreateTaskResult {
    const id = this.exposed(link, result.task.taskId);
    this.keep(id, { link, id: result.task.taskId });
    return { ...result, task: { ...result.task, taskId: id } };
  }

  /** A call answered by the gateway itself (refused, or plangate's own tool), as a task completed at once. */
  local(result: CallToolResult, params: TaskCreationParams): CreateTaskResult {
    const now = new Date().toISOString();
    const task: Task = { taskId: `plangate-${randomUUID()}`, status: 'completed', ttl: params.ttl ?? null, createdAt: now, lastUpdatedAt: now };
    this.keep(task.taskId, { task, result });
    return { task };
  }

  /** An upstream's task status notification, for the client under its id; undefined when it is not this session's. */
  notification(link: UpstreamLink, n: Notification): Notification | undefined {
    const taskId = (n.params as { taskId?: unknown } | undefined)?.taskId;
    if (typeof taskId !== 'string') return undefined;
    const id = this.exposed(link, taskId);
    const held = this.held.get(id);
    return held && 'link' in held && held.link === link ? { ...n, params: { ...n.params, taskId: id } } : undefined;
  }

  private find(id: string): Held {
    const held = this.held.get(id);
    if (!held) throw new McpError(RpcCode.InvalidParams, NOT_FOUND);
    return held;
  }

  /** Registers `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` on the session's server. */
  register(): void {
    const s = this.session.server;
    const g = this.session.guards;
    const ask = (held: { link: UpstreamLink; id: string }, method: string, signal: AbortSignal) =>
      held.link.request({ method, params: { taskId: held.id } }, { signal }) as Promise<Record<string, unknown>>;
    s.setRequestHandler(GetTaskRequestSchema, (req, extra) => g.bounded(req.method, async () => {
      const held = this.find(req.params.taskId);
      if ('task' in held) return held.task as never;
      return { ...(await ask(held, req.method, extra.signal)), taskId: req.params.taskId } as never;
    }));
    s.setRequestHandler(CancelTaskRequestSchema, (req, extra) => g.bounded(req.method, async () => {
      const held = this.find(req.params.taskId);
      if ('task' in held) throw new McpError(RpcCode.InvalidParams, `Cannot cancel task in terminal status: ${held.task.status}`);
      return { ...(await ask(held, req.method, extra.signal)), taskId: req.params.taskId } as never;
    }));
    s.setRequestHandler(GetTaskPayloadRequestSchema, (req, extra) => g.bounded(req.method, async () => {
      const id = req.params.taskId;
      const held = this.find(id);
      const result = 'task' in held ? held.result : await this.session.within(held.link, extra, () => ask(held, req.method, extra.signal));
      // The result names its task (related-task metadata): by the id the client knows.
      const meta = (result as { _meta?: Record<string, unknown> })._meta;
      return { ...result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId: id } } } as never;
    }));
    s.setRequestHandler(ListTasksRequestSchema, (_req, extra) => g.bounded('tasks/list', async () => {
      await this.session.start();
      const tasks: Task[] = [];
      for (const link of this.session.links) {
        if (link.state !== 'up' || !link.serverCapabilities?.tasks?.list) continue;
        let cursor: string | undefined;
        for (let page = 0; page < 100; page++) {
          const r = await link.request({ method: 'tasks/list', params: cursor !== undefined ? { cursor } : {} }, { signal: extra.signal }) as { tasks?: Task[]; nextCursor?: string };
          for (const t of r.tasks ?? []) {
            const id = this.exposed(link, t.taskId);
            const held = this.held.get(id);
            if (held && 'link' in held && held.link === link) tasks.push({ ...t, taskId: id });
          }
          cursor = r.nextCursor;
          if (cursor === undefined) break;
        }
      }
      for (const held of this.held.values()) if ('task' in held) tasks.push(held.task);
      return { tasks } as never;
    }));
  }
}
