/**
 * The gateway's default bounds on sessions and requests, apart from the
 * modules that enforce them, so that the command line can name them in its
 * help without loading the MCP SDK.
 */

/**
 * The most requests one session may have in flight at once: the gated ones
 * (`tools/call`, `resources/read`, `prompts/get`) and those passed through
 * (the lists, subscriptions, completions, the log level); not `ping`. Each
 * is decided or read from the store, and held open upstream until it is
 * answered; a client that sends more at once gets the busy error
 * (`BUSY_RPC_CODE`, guards.ts) for the extra ones, and nothing of them is
 * decided or forwarded.
 */
export const MAX_CALLS_IN_FLIGHT = 64;

/** Default most sessions one seat may hold open. */
export const MCP_SESSIONS_PER_SEAT = 16;
