/** The MCP gateway as a library (`plangate/mcp`). */
export { createMcpGateway, type GatewayHealth, type GatewayOptions, type McpGateway, type UpstreamHealth } from './gateway.js';
export { listenMcp, MCP_BODY_LIMIT, MCP_EVICT_IDLE_MS, MCP_SESSION_IDLE_MS, type McpListenOptions } from './http.js';
export { INITIALIZE_BURST, INITIALIZE_REFILL_MS, SessionRate, type SessionRateOptions } from './session-rate.js';
export { MAX_CALLS_IN_FLIGHT, MCP_SESSIONS_PER_SEAT } from './limits.js';
export { listenStatus, type McpListener } from './status.js';
export { parseUpstreamsFile, readRootsOf, upstreamsFrom, type UpstreamArgs } from './config.js';
export { GatewaySession, type SessionOptions } from './session.js';
export { RECONNECT, UpstreamDownError, type Backoff, type UpstreamSpec } from './upstream.js';
export { DEFAULT_REVIEWER_CHANNEL, NAMESPACE_SEPARATOR, RUN_META_KEY, SAY_TOOL } from './names.js';
export { COMPLETION_COMPLETE, PROMPT_GET, REFUSED_RPC_CODE, RESOURCE_READ, RESOURCE_SUBSCRIBE } from './reads.js';
export { BUSY_RPC_CODE, UNLISTED_TOOL } from './guards.js';
export { MAX_UPSTREAM_MESSAGE_BYTES, MIN_UPSTREAM_MESSAGE_BYTES } from './message-bound.js';
export { listUpstreamTools, MAX_LIST_PAGES, starterRules } from './init.js';
