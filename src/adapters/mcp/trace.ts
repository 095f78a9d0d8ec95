/**
 * The gateway's MCP spans, as OpenTelemetry's semantic conventions for MCP
 * define them (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/,
 * status Development): one SERVER span per request, named
 * `{mcp.method.name} {target}`, with `mcp.method.name`, `jsonrpc.request.id`,
 * `mcp.session.id`, `gen_ai.tool.name` and `gen_ai.operation.name`; the
 * client's trace context is read from the request's `params._meta`. The
 * decision's own span is its child. Nothing is recorded while tracing is off.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withCallerTrace } from '../../main/telemetry/context.js';
import { TRACER_NAME, tracingOn } from '../../main/telemetry/state.js';
import type { Extra } from './session.js';

/**
 * Runs a `tools/call` inside its MCP span (the caller's trace as parent).
 *
 * @example
 * s.setRequestHandler(CallToolRequestSchema, (req, extra) => inToolCallSpan(req.params, extra, () => callTool(…)));
 */
export function inToolCallSpan(
  params: { name: string; _meta?: Record<string, unknown> | undefined },
  extra: Extra,
  call: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (!tracingOn()) return call();
  return withCallerTrace(params._meta, () => trace.getTracer(TRACER_NAME).startActiveSpan(`tools/call ${params.name}`, {
    kind: SpanKind.SERVER,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': params.name,
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': String(extra.requestId),
      ...(extra.sessionId !== undefined ? { 'mcp.session.id': extra.sessionId, 'network.transport': 'tcp' } : { 'network.transport': 'pipe' }),
    },
  }, async (span) => {
    try {
      const result = await call();
      // A tool's own failure, a refusal included, is a result with isError (the conventions' `tool_error`).
      if (result.isError === true) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return result;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      span.setAttribute('error.type', code !== undefined ? String(code) : 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  }));
}
