/**
 * One client session of the gateway: an SDK `Server` facing the client, and
 * one `UpstreamLink` per upstream, opened when the client has initialized
 * (so the upstreams are offered the sampling and elicitation support the
 * client declared, and nothing more). Every entry point is gated here
 * before anything goes upstream (see calls.ts); the rest is passed through.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode as RpcCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  ResultSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CreateTaskResult,
  type InitializeRequest,
  type InitializeResult,
  type Notification,
  type Request,
  type ServerNotification,
  type ServerCapabilities,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { callTool, type CallDeps } from './calls.js';
import { inToolCallSpan } from './trace.js';
import { COMPLETION_COMPLETE, getPrompt, PROMPT_GET, readResource, RESOURCE_READ, RESOURCE_SUBSCRIBE } from './reads.js';
import { RequestGuards } from './guards.js';
import { registerPassThrough } from './passthrough.js';
import { exposedName, SAY_TOOL } from './names.js';
import { ownTools } from './own-tools.js';
import { withNotForwarded } from './results.js';
import { SessionTasks } from './tasks.js';
import { asSent, UpstreamLink, type Backoff, type UpstreamSpec } from './upstream.js';
import { advertised, identity } from './identity.js';

/** How often at most a call to an unknown tool name makes the gateway read the upstreams' tool lists again. */
export const UNKNOWN_NAME_REREAD_MS = 1_000;

/** The SDK server's own answer to a method it has no handler for (its message as sent, with no "MCP error" prefix). */
export const METHOD_NOT_FOUND = (): McpError => asSent(new McpError(RpcCode.MethodNotFound, 'Method not found'));

/** How long the answer to initialize waits for the upstreams to answer theirs. */
export const UPSTREAM_INIT_WAIT_MS = 5_000;

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The names the entry points that are not tools are decided as. An upstream
 * tool exposed under one of them would be decided as that read (its class,
 * the hold whitelist, the read guard), so it is not offered.
 */
const DECIDED_AS_READS: ReadonlySet<string> = new Set([RESOURCE_READ, PROMPT_GET, COMPLETION_COMPLETE, RESOURCE_SUBSCRIBE]);

/** What a session is told when it opens. */
export interface SessionOptions {
  /** The acting seat: from `--agent` (stdio) or the bearer token (HTTP), never from the client's messages. */
  seat: string;
  /** The run bound to the session by whoever started it (`--run`); a call's `_meta` may not name another. */
  runId?: string;
  upstreams: readonly UpstreamSpec[];
  deps: CallDeps;
  reconnect?: Backoff;
  /** Most bytes of one message from an upstream (default MAX_UPSTREAM_MESSAGE_BYTES, in message-bound.ts). */
  maxUpstreamMessageBytes?: number;
  /** Called when a link goes up or down. */
  onState?: () => void;
}

/** A tool as routed: which link offers it, under which upstream name. */
export interface Route {
  link: UpstreamLink;
  tool: Tool;
}

/**
 * A gateway session; `connect(transport)` serves one client.
 *
 * @example
 * const session = new GatewaySession({ seat: '0xWORKER', upstreams, deps });
 * await session.connect(new StdioServerTransport());
 */
export class GatewaySession {
  readonly server: Server;
  links: UpstreamLink[] = [];
  /** Exposed tool name → route, rebuilt whenever a link's tools change. */
  readonly routes = new Map<string, Route>();
  /** Resource URI → the link that listed it. */
  readonly resourceLinks = new Map<string, UpstreamLink>();
  /** Exposed prompt name → link and upstream name. */
  readonly promptRoutes = new Map<string, { link: UpstreamLink; name: string }>();
  /** Client requests being served per link, to relate the link's sampling and elicitation requests to them. */
  readonly inflight = new Map<UpstreamLink, Set<Extra>>();
  private started: Promise<void> | undefined;
  /** The bound of requests in flight, and the shield for store errors (the pass-through handlers use them too). */
  readonly guards: RequestGuards;
  /** The re-read of the tool lists for an unknown name under way, and when the last one ended. */
  private rereading: Promise<void> | undefined;
  private rereadAt = Number.NEGATIVE_INFINITY;
  private listed = false;
  private closed = false;
  /** The tasks this session created (task ids are scoped to it). */
  readonly tasks = new SessionTasks(this);
  /** What the client was told the gateway offers at initialize, from what the upstreams offer. */
  offered: ServerCapabilities = {};
  /** Resolves once the client has initialized: an upstream's request (roots, sampling) waits for it. */
  private readonly clientReady: Promise<void>;
  private ready: () => void = () => {};

  constructor(readonly options: SessionOptions) {
    this.guards = new RequestGuards(options.seat, options.deps, (tool) => this.routes.has(tool) || tool === SAY_TOOL);
    this.server = new Server(
      { name: 'plangate', version: '0.1.0' },
      {
        capabilities: {
          tools: { listChanged: true },
          resources: { listChanged: true, subscribe: true },
          prompts: { listChanged: true },
          logging: {},
          completions: {},
          // Held so that the task handlers can be set; what the client is offered is `offered`.
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
      },
    );
    this.clientReady = new Promise((resolve) => (this.ready = resolve));
    this.server.oninitialized = () => {
      this.ready();
      void this.start();
    };
    this.register();
  }

  get seat(): string {
    return this.options.seat;
  }

  get namespaced(): boolean {
    return this.options.upstreams.length > 1;
  }

  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
  }

  /** Opens the upstream links once; every handler waits for the first attempt of each. */
  start(): Promise<void> {
    this.started ??= (async () => {
      const cc: ClientCapabilities = this.server.getClientCapabilities() ?? {};
      const caps: ClientCapabilities = {
        ...(cc.sampling ? { sampling: cc.sampling } : {}),
        ...(cc.elicitation ? { elicitation: cc.elicitation } : {}),
        // The client's roots are offered to the upstreams (a filesystem server takes its directories from them).
        ...(cc.roots ? { roots: { listChanged: true } } : {}),
      };
      this.links = this.options.upstreams.map((spec) => new UpstreamLink(spec, caps, {
        onToolsChanged: () => this.toolsChanged(),
        onNotification: (n) => this.notify(n, link(spec.name)),
        onRequest: (req, signal) => this.relay(link(spec.name), req, signal),
        onState: () => this.options.onState?.(),
      }, {
        ...(this.options.reconnect ? { reconnect: this.options.reconnect } : {}),
        ...(this.options.maxUpstreamMessageBytes !== undefined ? { maxMessageBytes: this.options.maxUpstreamMessageBytes } : {}),
      }));
      const link = (name: string) => this.links.find((l) => l.spec.name === name) as UpstreamLink;
      await Promise.all(this.links.map((l) => l.start()));
      this.rebuild();
    })();
    return this.started;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.links.map((l) => l.close()));
    await this.server.close().catch(() => {});
  }

  /**
   * The upstreams' tool lists' own `_meta`, merged in link order (a later
   * upstream's key over an earlier one's), as the other lists merge theirs.
   */
  toolsMeta(): { _meta?: Record<string, unknown> } {
    const metas = this.links.filter((l) => l.state === 'up' && l.toolsMeta).map((l) => l.toolsMeta);
    return metas.length ? { _meta: Object.assign({}, ...metas) as Record<string, unknown> } : {};
  }

  /** The tool list the client sees: plangate's own tools, then every upstream's. */
  async listTools(): Promise<Tool[]> {
    await this.start();
    this.listed = true;
    const channel = await this.options.deps.channelFor(this.seat);
    const own = ownTools(channel);
    const upstream = [...this.routes.entries()]
      .filter(([name]) => name !== SAY_TOOL && name !== channel)
      .map(([name, { tool }]) => ({ ...tool, name, ...(tool.outputSchema ? { outputSchema: withNotForwarded(tool.outputSchema) } : {}) }));
    return [...own, ...upstream];
  }

  /** Finds a tool by its exposed name, reading the tool lists again once if it is not known yet. */
  async route(name: string): Promise<Route | undefined> {
    await this.start();
    if (!this.routes.has(name)) await this.reread();
    return this.routes.get(name);
  }

  /**
   * Reads every reachable upstream's tool list again, for a name not known
   * yet: one read at a time, shared by the calls that come meanwhile, and at
   * most one every {@link UNKNOWN_NAME_REREAD_MS}, so that calls to made-up
   * names cannot each cost the upstreams a full listing.
   */
  private reread(): Promise<void> {
    if (this.rereading) return this.rereading;
    if (Date.now() - this.rereadAt < UNKNOWN_NAME_REREAD_MS) return Promise.resolve();
    const read: Promise<void> = (async () => {
      await Promise.all(this.links.filter((l) => l.state === 'up').map((l) => l.refreshTools().catch(() => {})));
      this.rebuild();
    })().finally(() => {
      this.rereading = undefined;
      this.rereadAt = Date.now();
    });
    this.rereading = read;
    return read;
  }

  /** Runs `fn` as a client request being served by `link` (sampling and elicitation relate to it). */
  async within<T>(link: UpstreamLink, extra: Extra, fn: () => Promise<T>): Promise<T> {
    let set = this.inflight.get(link);
    if (!set) this.inflight.set(link, (set = new Set()));
    set.add(extra);
    try {
      return await fn();
    } finally {
      set.delete(extra);
    }
  }

  private rebuild(): void {
    this.routes.clear();
    for (const link of this.links) {
      for (const tool of link.tools) {
        const name = exposedName(link.spec.name, tool.name, this.namespaced);
        if (!this.routes.has(name) && !DECIDED_AS_READS.has(name)) this.routes.set(name, { link, tool });
      }
    }
  }

  private toolsChanged(): void {
    this.rebuild();
    if (this.listed && !this.closed) void this.server.sendToolListChanged().catch(() => {});
  }

  /** Passes a notification from an upstream to the client (a task's status only when the task is this session's). */
  private async notify(n: Notification, link: UpstreamLink): Promise<void> {
    if (this.closed) return;
    const out = n.method === 'notifications/tasks/status' ? this.tasks.notification(link, n) : n;
    if (out) await this.server.notification(out as ServerNotification).catch(() => {});
  }

  /**
   * Throws what a server without the capability answers (-32601), unless an
   * upstream offered it at initialize (and, given `part`, that part of it:
   * `subscribe` of resources, `list` of tasks). Called before a request is
   * decided: what no upstream could answer is neither decided nor forwarded.
   */
  offers(capability: keyof ServerCapabilities, part?: string): void {
    const offered = this.offered[capability] as Record<string, unknown> | undefined;
    if (!offered || (part !== undefined && !offered[part])) throw METHOD_NOT_FOUND();
  }

  /**
   * Passes an upstream's request (sampling, elicitation) to the client: as
   * part of the client's call to that upstream when exactly one is in flight,
   * otherwise on the session's own stream.
   */
  private async relay(link: UpstreamLink, request: Request, signal: AbortSignal) {
    const calls = [...(this.inflight.get(link) ?? [])];
    const one = calls.length === 1 ? calls[0] : undefined;
    await this.clientReady;
    try {
      return await (one
        ? one.sendRequest(request as ServerRequest, ResultSchema, { signal })
        : this.server.request(request as ServerRequest, ResultSchema, { signal }));
    } catch (error) {
      throw error instanceof McpError ? asSent(error) : error;
    }
  }

  /**
   * Answers initialize once the upstreams are reached: the capabilities the
   * client is offered are those the upstreams offer, and the instructions
   * and (with one upstream) the server's identity are the upstream's.
   */
  private async initialize(req: InitializeRequest): Promise<InitializeResult> {
    // The SDK's own answer (protocol version, the client's capabilities kept), then the upstreams'.
    const answer = await (this.server as unknown as { _oninitialize(r: InitializeRequest): Promise<InitializeResult> })._oninitialize(req);
    // An upstream that does not answer soon is taken to offer what the gateway passes through.
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([this.start(), new Promise((resolve) => (wait = setTimeout(resolve, UPSTREAM_INIT_WAIT_MS)))]);
    clearTimeout(wait);
    this.offered = advertised(this.links);
    return { ...answer, capabilities: this.offered, ...identity(this.links, this.namespaced) };
  }

  /** A `tools/call`, task-augmented or not: decided in callTool; a task is the upstream's only when the upstream got the call. */
  private call(params: Parameters<typeof callTool>[2], extra: Extra): Promise<CallToolResult | CreateTaskResult> {
    const task = params.task;
    // A plain call is callTool's answer as it is (no turn of its own here).
    if (!task) return callTool(this, this.options.deps, params, extra);
    return this.taskCall(params, task, extra);
  }

  /** A task-augmented `tools/call`. */
  private async taskCall(params: Parameters<typeof callTool>[2], task: NonNullable<Parameters<typeof callTool>[2]['task']>, extra: Extra): Promise<CallToolResult | CreateTaskResult> {
    if (!this.offered.tasks?.requests?.tools?.call) {
      throw new McpError(RpcCode.InternalError, 'Server does not support task creation for tools/call (required for tools/call)');
    }
    const result = await callTool(this, this.options.deps, params, extra) as CallToolResult | CreateTaskResult;
    if (!('task' in result) || typeof result.task !== 'object' || result.task === null) return this.tasks.local(result as CallToolResult, task);
    const route = this.routes.get(params.name);
    if (!route) throw new McpError(RpcCode.InternalError, `the upstream of ${params.name} went away while its task was created`);
    return this.tasks.adopt(route.link, result as CreateTaskResult);
  }

  private register(): void {
    const s = this.server;
    const deps = this.options.deps;
    const g = this.guards;
    s.setRequestHandler(ListToolsRequestSchema, () => g.bounded('tools/list', async () => ({ tools: await this.listTools(), ...this.toolsMeta() })));
    s.setRequestHandler(InitializeRequestSchema, (req) => this.initialize(req));
    s.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      await Promise.all(this.links.map((l) => l.rootsChanged()));
    });
    s.setRequestHandler(CallToolRequestSchema, (req, extra) => g.bounded('tools/call', () => inToolCallSpan(req.params, extra, () => this.call(req.params, extra) as Promise<CallToolResult> /* a task's creation too: the span reads isError only */), req.params.name) as never);
    this.tasks.register();
    s.setRequestHandler(ReadResourceRequestSchema, (req, extra) => g.bounded(RESOURCE_READ, () => readResource(this, deps, req.params, extra)));
    s.setRequestHandler(GetPromptRequestSchema, (req, extra) => g.bounded(PROMPT_GET, () => getPrompt(this, deps, req.params, extra)));
    registerPassThrough(this, deps);
  }
}
