/**
 * One connection to one upstream MCP server, through the SDK's `Client`:
 * a command over stdio (started by the gateway) or a Streamable HTTP URL.
 * It keeps the upstream's tool list, says whether the upstream is up, and
 * when the upstream goes away it reconnects with backoff (a stdio command
 * is started again). What the upstream sends that is not an answer — list
 * changes, log messages, sampling and elicitation requests — goes to hooks.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
  ResultSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type Notification,
  type Request,
  type Result,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_UPSTREAM_MESSAGE_BYTES } from './message-bound.js';
import { readToolList } from './tool-list.js';
import { progressBeforeAnswers, stderrHint, upstreamTransport, type StderrTail } from './upstream-transport.js';
import { asSent, DETAIL_CHARS, isConnectionError, message, notAnMcpAnswer, UpstreamDownError } from './upstream-errors.js';

export { asSent, UpstreamDownError } from './upstream-errors.js';

/** How to reach an upstream. */
export type UpstreamSpec =
  | { name: string; kind: 'stdio'; command: string; args: string[]; cwd?: string; env?: Record<string, string> }
  | { name: string; kind: 'http'; url: string; headers?: Record<string, string> };

/** Where a link stands. */
export type LinkState = 'connecting' | 'up' | 'down' | 'closed';

/** What a link tells the session that owns it. */
export interface UpstreamHooks {
  /** The tool list changed (after a `list_changed` or a reconnect). */
  onToolsChanged(): void;
  /** Any other notification from the upstream (log messages, resource and prompt list changes, …). */
  onNotification(notification: Notification): Promise<void>;
  /** A request from the upstream to the client (sampling, elicitation). */
  onRequest(request: Request, signal: AbortSignal): Promise<Result>;
  /** The link went up or down. */
  onState(): void;
}

/** How reconnects are spaced: the first delay, the most it grows to, and the factor between attempts. */
export interface Backoff {
  firstMs: number;
  maxMs: number;
  factor: number;
}

/** Delay before the first reconnect, and the most it grows to. */
export const RECONNECT: Readonly<Backoff> = { firstMs: 250, maxMs: 30_000, factor: 2 };

/** How a link connects, beyond where to. */
export interface LinkOptions {
  reconnect?: Backoff;
  /** Most bytes of one message from the upstream (default MAX_UPSTREAM_MESSAGE_BYTES, in message-bound.ts). */
  maxMessageBytes?: number;
}

/** How the SDK's Streamable HTTP client tells of an event stream failing (its notification stream, the GET, or a response's). */
const STREAM_FAILED = /Failed to open SSE stream|Failed to reconnect SSE stream|SSE stream disconnected|Maximum reconnection attempts/;
/** How it says it stopped opening that stream again. */
const STREAM_GIVEN_UP = /^Maximum reconnection attempts \(\d+\) exceeded/;
/** How the SDK's stdio transport says a message passed its `maxBufferSize` (it then ends the process). */
const STDIO_TOO_LARGE = /^ReadBuffer exceeded maximum size/;

/**
 * A live connection to one upstream that reconnects by itself.
 *
 * @example
 * const link = new UpstreamLink({ name: 'fs', kind: 'stdio', command: 'mcp-server-filesystem', args: ['/srv'] }, {}, hooks);
 * await link.start();
 * link.tools.map((t) => t.name);
 */
export class UpstreamLink {
  state: LinkState = 'connecting';
  tools: Tool[] = [];
  /** The tool list's own `_meta`, as last read with it. */
  toolsMeta: Record<string, unknown> | undefined;
  /** Why it is down (or last was), or its last failed answer, with the upstream's own words (its error, its stderr): for operators. */
  lastError: string | undefined;
  /** When `lastError` was set (ms since the epoch; 0 before any). */
  lastErrorAt = 0;
  /** Why it is down in a few words of plangate's own, without the upstream's: what a client's call is told. */
  private reason: string | undefined;
  since = Date.now();
  /** Reconnects after the first connection. */
  restarts = 0;
  /** The tool list being read again after a `list_changed`, until the session has the new one. */
  private changing: Promise<void> | undefined;
  private client: Client | undefined;
  /** The client still connecting (its process started, no answer to initialize yet): close() must end it too. */
  private connecting: Client | undefined;
  /** Re-reads of the tool list started, and the latest of them whose list was kept. */
  private reads = 0;
  private keptRead = 0;
  private retryMs: number = RECONNECT.firstMs;
  private timer: NodeJS.Timeout | undefined;
  /** What the upstream last wrote on stderr (a stdio upstream), for the operator's messages. */
  private stderr: StderrTail | undefined;

  private readonly reconnect: Backoff;
  private readonly maxMessageBytes: number;

  constructor(
    readonly spec: UpstreamSpec,
    private readonly capabilities: ClientCapabilities,
    private readonly hooks: UpstreamHooks,
    options: LinkOptions = {},
  ) {
    this.reconnect = options.reconnect ?? RECONNECT;
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_UPSTREAM_MESSAGE_BYTES;
  }

  /** Connects for the first time; on failure the link is down and keeps retrying. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** The upstream's capabilities, once connected. */
  get serverCapabilities() {
    return this.client?.getServerCapabilities();
  }

  /** The upstream's own name, title, version and icons, once connected. */
  get serverInfo() {
    return this.client?.getServerVersion();
  }

  /** The upstream's instructions to the model, once connected. */
  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /** Tells the upstream the client's roots changed (when it was offered roots). */
  async rootsChanged(): Promise<void> {
    if (this.state === 'up' && this.capabilities.roots) await this.client?.sendRootsListChanged().catch(() => {});
  }

  /** Where the link is, for health and error messages. */
  describe(): string {
    return this.spec.kind === 'stdio' ? [this.spec.command, ...this.spec.args].join(' ') : this.spec.url;
  }

  /**
   * Sends a request upstream. Throws `UpstreamDownError` when the link is not
   * up or the connection drops while waiting; an error the upstream answers
   * with (an `McpError`) is thrown as it is, and an HTTP exchange that failed
   * with a status as an `McpError` that names the status only.
   */
  async request(request: Request, options: RequestOptions = {}): Promise<Result> {
    const client = this.client;
    if (this.state !== 'up' || !client) throw new UpstreamDownError(this.spec.name, this.reason ?? 'not connected yet');
    try {
      return await client.request(request as never, ResultSchema, options);
    } catch (error) {
      if (this.state !== 'up' || isConnectionError(error)) {
        this.down('the connection dropped', `: ${message(error)}`);
        throw new UpstreamDownError(this.spec.name, this.reason ?? 'the connection dropped');
      }
      if (error instanceof McpError) throw asSent(error);
      const answered = notAnMcpAnswer(this.spec.name, request.method, error);
      this.noteError(answered.detail);
      throw answered.error;
    }
  }

  /**
   * Reads the upstream's tool list again (every page). Re-reads may overlap
   * (a call to an unknown name, a `list_changed`, a reconnect): a list is
   * kept only when no re-read started after it has been kept already, so an
   * older answer never replaces a newer list.
   */
  async refreshTools(): Promise<void> {
    const read = ++this.reads;
    const keep = (tools: Tool[], meta?: Record<string, unknown>) => {
      if (read < this.keptRead) return;
      this.keptRead = read;
      this.tools = tools;
      this.toolsMeta = meta;
    };
    const client = this.client;
    if (!client || !client.getServerCapabilities()?.tools) {
      keep([]);
      return;
    }
    const list = await readToolList(client);
    keep(list.tools, list.meta);
  }

  /** Whether the tool list is being read again after a change (see {@link toolsSettled}). */
  get toolsChanging(): boolean {
    return this.changing !== undefined;
  }

  /**
   * Resolves once no re-read of the tool list is under way: a call that
   * arrives after an upstream announced a change is decided on the list the
   * change led to (a tool's hints may have changed), not on the one before.
   */
  async toolsSettled(): Promise<void> {
    while (this.changing) await this.changing;
  }

  /** After a `list_changed`: reads the list again (after any read still under way) and tells the session. */
  private toolsChanged(): Promise<void> {
    const before = this.changing;
    const read: Promise<void> = (async () => {
      await before;
      try {
        await this.refreshTools();
      } catch (error) {
        this.noteError(`tools/list failed: ${message(error)}`);
      }
      this.hooks.onToolsChanged();
    })().finally(() => {
      if (this.changing === read) this.changing = undefined;
    });
    this.changing = read;
    return read;
  }

  /** Stops the link for good: no reconnect, the stdio command is ended. */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.timer);
    const client = this.client;
    const connecting = this.connecting;
    this.client = undefined;
    this.connecting = undefined;
    // An upstream that never answers initialize is ended now, not when the SDK's request timeout fires.
    await Promise.all([client?.close().catch(() => {}), connecting?.close().catch(() => {})]);
  }

  private async connect(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'connecting';
    const client = new Client({ name: 'plangate', version: '0.1.0' }, { capabilities: this.capabilities });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.toolsChanged());
    client.fallbackNotificationHandler = (notification) => this.hooks.onNotification(notification);
    if (this.capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, (req, extra) => this.hooks.onRequest(req, extra.signal) as never);
    if (this.capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, (req, extra) => this.hooks.onRequest(req, extra.signal) as never);
    if (this.capabilities.roots) client.setRequestHandler(ListRootsRequestSchema, (req, extra) => this.hooks.onRequest(req, extra.signal) as never);
    client.onclose = () => {
      if (this.client === client) this.down(this.spec.kind === 'stdio' ? 'its process exited' : 'the connection closed', stderrHint(this.stderr));
    };
    if (this.spec.kind === 'http') {
      // The SDK reports its notification stream's failures here, not to a request: the operator is told,
      // and once the SDK has given up opening it again, the link is down and reconnects (a new session,
      // with a new stream), so list changes and log messages are not lost for good without a word.
      client.onerror = (error) => {
        // A request's own failure comes here too, and is its caller's to report.
        if (this.client !== client || !STREAM_FAILED.test(message(error))) return;
        this.noteError(`the notification stream: ${message(error)}`);
        if (STREAM_GIVEN_UP.test(message(error))) this.down('its notification stream ended', `: ${message(error)}`);
      };
    } else {
      // The transport ends the process after this: the link tells why, before the exit does.
      client.onerror = (error) => {
        if ((this.client === client || this.connecting === client) && STDIO_TOO_LARGE.test(message(error))) this.tooLarge();
      };
    }
    this.connecting = client;
    try {
      const { transport, stderr } = upstreamTransport(this.spec, this.maxMessageBytes, (t) => {
        // Bound for this link's transport alone: a message too large takes this link down, no other.
        if (this.client?.transport === t || this.connecting?.transport === t) this.tooLarge();
      });
      this.stderr = stderr;
      await client.connect(transport);
      progressBeforeAnswers(transport);
      if (this.connecting === client) this.connecting = undefined;
      if ((this.state as LinkState) === 'closed') {
        await client.close();
        return;
      }
      this.client = client;
      await this.refreshTools();
      this.state = 'up';
      this.since = Date.now();
      this.lastError = undefined;
      this.lastErrorAt = 0;
      this.reason = undefined;
      this.retryMs = this.reconnect.firstMs;
      this.hooks.onState();
      this.hooks.onToolsChanged();
    } catch (error) {
      if (this.connecting === client) this.connecting = undefined;
      await client.close().catch(() => {});
      if (this.client === client) this.client = undefined;
      this.down('connecting failed', `: ${message(error)}${stderrHint(this.stderr)}`);
    }
  }

  /**
   * A message over the bound: the link is down and reconnects. The rest of
   * that message cannot be skipped (over stdio the stream has no other
   * boundary; over HTTP its answer is cut off), so every request in flight
   * on the link fails, each told why.
   */
  private tooLarge(): void {
    this.down(`it sent a message larger than ${this.maxMessageBytes} bytes, the gateway's bound`);
  }

  /** Keeps what went wrong, in the upstream's own words, for operators (health's `lastError`), and when. */
  private noteError(text: string): void {
    this.lastError = text.slice(0, DETAIL_CHARS);
    this.lastErrorAt = Date.now();
  }

  /** Marks the link down: `reason` is plangate's words (clients see them), `detail` the upstream's (operators only). */
  private down(reason: string, detail = ''): void {
    // Already down: the calls that were in flight fail one by one, and the first failure is the cause.
    if (this.state === 'closed' || this.state === 'down') return;
    const wasUp = this.state === 'up';
    const client = this.client;
    this.client = undefined;
    this.state = 'down';
    this.reason = reason;
    this.noteError(`${reason}${detail}`);
    this.since = Date.now();
    void client?.close().catch(() => {});
    if (wasUp || !this.timer) this.schedule();
    this.hooks.onState();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * this.reconnect.factor, this.reconnect.maxMs);
    this.lastError = `${this.lastError ?? 'down'}; reconnecting in ${wait} ms`;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.restarts++;
      void this.connect();
    }, wait);
    this.timer.unref();
  }
}
