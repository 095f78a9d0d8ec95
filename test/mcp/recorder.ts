/**
 * An upstream MCP server for the gateway tests, built on the SDK's
 * `McpServer`: it appends every tool call it receives to a JSONL file
 * (RECORD), so a test asserts on the upstream's own record. Tools: `echo`
 * (no hints), `peek` (read-only), `harden_peek` (makes `peek` an effect;
 * the list after it answers late), `add_tool` (registers `late_tool`, which
 * sends tools/list_changed), `slow` (progress, honours cancellation),
 * `ask` (elicitation), `sample` (sampling), `big` (a text of as many bytes as asked), `flood` (log messages of the session) and `exit` (the process ends, with a last line on stderr); with a task store, `task_echo` (a task).
 *
 * Over stdio: `node --import tsx recorder.ts`. Over Streamable HTTP: `recorderHttp()`.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { InMemoryTaskStore, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import type { ServerResponse } from 'node:http';
import { listenLoopback, sessionHttp } from './session-http.js';

/**
 * A task store shared by every session of a server, that keeps no task to
 * its session (as a careless upstream might): any session can name any task.
 */
export class UnscopedTaskStore implements TaskStore {
  private readonly store = new InMemoryTaskStore();
  createTask(params: Parameters<TaskStore['createTask']>[0], requestId: Parameters<TaskStore['createTask']>[1], request: Parameters<TaskStore['createTask']>[2]) {
    return this.store.createTask(params, requestId, request);
  }
  getTask(taskId: string) {
    return this.store.getTask(taskId);
  }
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Parameters<TaskStore['storeTaskResult']>[2]) {
    return this.store.storeTaskResult(taskId, status, result);
  }
  getTaskResult(taskId: string) {
    return this.store.getTaskResult(taskId);
  }
  updateTaskStatus(taskId: string, status: Parameters<TaskStore['updateTaskStatus']>[1], message?: string) {
    return this.store.updateTaskStatus(taskId, status, message);
  }
  listTasks(cursor?: string) {
    return this.store.listTasks(cursor);
  }
  cleanup() {
    this.store.cleanup();
  }
}

export function recorderServer(record: string, files: string[] = [], extraTools: string[] = [], tasks?: TaskStore): McpServer {
  const server = new McpServer({ name: 'recorder', version: '1.0.0' }, {
    capabilities: { logging: {}, ...(tasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}) },
    ...(tasks ? { taskStore: tasks } : {}),
  });
  const log = (tool: string, args: unknown) => appendFileSync(record, `${JSON.stringify({ tool, args, pid: process.pid })}\n`);
  // Tools named as a test needs (no hints: effects), e.g. names that collide with the gateway's own.
  for (const name of extraTools) {
    server.registerTool(name, { description: `The tool ${name}.` }, async () => {
      log(name, {});
      return { content: [{ type: 'text', text: `${name} ran` }] };
    });
  }
  files.forEach((file, i) => {
    server.registerResource(`file-${i}`, pathToFileURL(file).href, { mimeType: 'text/plain' }, async (uri) => {
      log('resources/read', { uri: uri.href });
      return { contents: [{ uri: uri.href, text: readFileSync(file, 'utf8') }] };
    });
  });
  // With files, also a resource that is not a file: not the read guard's to judge.
  if (files.length > 0) {
    server.registerResource('memo', 'memo://insights', { mimeType: 'text/plain' }, async (uri) => {
      log('resources/read', { uri: uri.href });
      return { contents: [{ uri: uri.href, text: 'a memo' }] };
    });
  }
  // Its argument completes from names the server knows: what a completion answers is the upstream's data.
  const names = ['Ada', 'Alan', 'Grace'];
  server.registerPrompt('greet', { description: 'A greeting.', argsSchema: { who: completable(z.string(), (value) => names.filter((n) => n.startsWith(value))) } }, ({ who }) => {
    log('prompts/get', { who });
    return { messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}` } }] };
  });
  server.registerTool('echo', { description: 'Echo the text back.', inputSchema: { text: z.string() } }, async (args) => {
    log('echo', args);
    return { content: [{ type: 'text', text: args.text }] };
  });
  const peek = server.registerTool('peek', { description: 'Look at something.', inputSchema: { what: z.string() }, annotations: { readOnlyHint: true } }, async (args) => {
    log('peek', args);
    return { content: [{ type: 'text', text: `saw ${args.what}` }] };
  });
  // harden_peek makes peek an effect (which sends tools/list_changed), and the next tools/list
  // answers 400 ms late, so that a call can reach the gateway while it reads the new list.
  let listLate = 0;
  server.registerTool('harden_peek', { description: 'Make peek an effect.', annotations: { readOnlyHint: true } }, async () => {
    log('harden_peek', {});
    listLate = 400;
    peek.update({ annotations: { readOnlyHint: false, destructiveHint: true } });
    return { content: [{ type: 'text', text: 'peek is an effect now' }] };
  });
  // With a task store: `task_echo` runs as a task, the text back as its result a moment later.
  if (tasks) {
    server.experimental.tasks.registerToolTask('task_echo', { description: 'Echo the text back, as a task.', inputSchema: { text: z.string() }, execution: { taskSupport: 'required' } }, {
      createTask: async (args, extra) => {
        log('task_echo', args);
        const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 50 });
        setTimeout(() => void extra.taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: args.text }] }), 200);
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId)) as never,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    });
  }
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, (...a: unknown[]) => Promise<unknown>> })._requestHandlers;
  // Its prompt list carries list-level _meta, which a gateway must keep.
  const listPrompts = handlers.get('prompts/list');
  if (listPrompts) handlers.set('prompts/list', async (...a) => ({ ...(await listPrompts(...a) as object), _meta: { 'example.com/listed-by': 'recorder' } }));
  const listTools = handlers.get('tools/list');
  if (listTools) {
    handlers.set('tools/list', async (...a) => {
      const late = listLate;
      listLate = 0;
      if (late) await new Promise((r) => setTimeout(r, late));
      return listTools(...a);
    });
  }
  server.registerTool('add_tool', { description: 'Add late_tool.', annotations: { readOnlyHint: true } }, async () => {
    log('add_tool', {});
    server.registerTool('late_tool', { description: 'Added after start.', inputSchema: { n: z.number() } }, async (args) => {
      log('late_tool', args);
      return { content: [{ type: 'text', text: `late ${args.n}` }] };
    });
    return { content: [{ type: 'text', text: 'added late_tool' }] };
  });
  server.registerTool('slow', { description: 'Report progress, then answer.', inputSchema: { steps: z.number() }, annotations: { readOnlyHint: true } }, async (args, extra) => {
    log('slow', args);
    for (let i = 1; i <= args.steps; i++) {
      if (extra.signal.aborted) {
        log('slow_cancelled', { at: i });
        return { content: [{ type: 'text', text: 'cancelled' }] };
      }
      const token = extra._meta?.progressToken;
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: args.steps } });
      await new Promise((r) => setTimeout(r, 40));
    }
    return { content: [{ type: 'text', text: `done ${args.steps}` }] };
  });
  server.registerTool('ask', { description: 'Ask the user.', annotations: { readOnlyHint: true } }, async () => {
    log('ask', {});
    const r = await server.server.elicitInput({ message: 'Which colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } });
    return { content: [{ type: 'text', text: `elicit ${r.action} ${JSON.stringify(r.content ?? {})}` }] };
  });
  server.registerTool('sample', { description: 'Ask the model.', annotations: { readOnlyHint: true } }, async () => {
    log('sample', {});
    const r = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi?' } }], maxTokens: 10 });
    return { content: [{ type: 'text', text: `sampled ${(r.content as { text: string }).text}` }] };
  });
  // big answers with a text of as many bytes as asked, for the gateway's bound on a message.
  server.registerTool('big', { description: 'Answer with a large text.', inputSchema: { bytes: z.number() }, annotations: { readOnlyHint: true } }, async (args) => {
    log('big', args);
    return { content: [{ type: 'text', text: 'x'.repeat(args.bytes) }] };
  });
  // flood sends log messages of the session (not of the call), as many and as large as asked.
  server.registerTool('flood', { description: 'Send log messages.', inputSchema: { count: z.number(), bytes: z.number() }, annotations: { readOnlyHint: true } }, async (args) => {
    log('flood', args);
    for (let i = 0; i < args.count; i++) await server.server.sendLoggingMessage({ level: 'info', data: `${i} ${'z'.repeat(args.bytes)}` });
    return { content: [{ type: 'text', text: `sent ${args.count}` }] };
  });
  server.registerTool('exit', { description: 'End the process.', annotations: { readOnlyHint: true } }, async () => {
    log('exit', {});
    process.stderr.write('recorder: exiting, DATABASE_URL=postgres://rec:s3cret@db/rec\n');
    setTimeout(() => process.exit(3), 10);
    return { content: [{ type: 'text', text: 'bye' }] };
  });
  return server;
}

/** Serves a fresh recorder per MCP session over Streamable HTTP; resolves with its URL. */
export async function recorderHttp(record: string, files: string[] = [], extraTools: string[] = [], tasks?: TaskStore): Promise<{
  url: string;
  forget(): Promise<void>;
  failNextCall(status: number, text: string, contentType?: string): void;
  breakStreams(): void;
  mendStreams(): void;
  close(): Promise<void>;
}> {
  let failure: { status: number; text: string; contentType: string } | undefined;
  // The GET streams (the server's notifications) open now, and whether a new one is refused.
  const streams = new Set<ServerResponse>();
  let streamsBroken = false;
  const { http, transports } = sessionHttp((t) => recorderServer(record, files, extraTools, tasks).connect(t), (body, res, req) => {
    if (req.method === 'GET') {
      if (streamsBroken) {
        res.writeHead(500).end('streams are down');
        return true;
      }
      streams.add(res);
      res.once('close', () => void streams.delete(res));
      return false;
    }
    if (!failure || (body as { method?: string } | undefined)?.method !== 'tools/call') return false;
    res.writeHead(failure.status, { 'content-type': failure.contentType }).end(failure.text);
    failure = undefined;
    return true;
  });
  const url = await listenLoopback(http);
  return {
    url,
    /** The next tools/call is answered with this HTTP status and body, as a failing web server (or a proxy in front of it) would. */
    failNextCall(status: number, text: string, contentType = 'text/html') {
      failure = { status, text, contentType };
    },
    /** Cuts every open GET stream, and answers new ones 500 until mended, as a proxy that drops them would. */
    breakStreams() {
      streamsBroken = true;
      for (const res of streams) res.destroy();
    },
    mendStreams() {
      streamsBroken = false;
    },
    /** Ends every session, as a restart of the server on the same port would: their ids are answered 404 from now on. */
    async forget() {
      const open = [...transports.values()];
      transports.clear();
      for (const t of open) await t.close();
    },
    async close() {
      for (const t of transports.values()) await t.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string) && process.env['RECORD']) {
  await recorderServer(process.env['RECORD']).connect(new StdioServerTransport());
}
