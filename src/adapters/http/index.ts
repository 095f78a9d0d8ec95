/** The HTTP adapter: the decision service, the OPA-compatible data API, and middleware for embedding. */
export { createHttpApp, DEFAULT_BODY_LIMIT, DEFAULT_ROUTES, type HttpApp, type HttpAppOptions, type HttpAnswer, type HttpRequest } from './app.js';
export { createTokenSet, hashToken, issueTokens, loadTokens, newToken, parseTokenEnv, parseTokenFile, ROLES, TOKENS_ENV, TOKENS_FILE_ENV, type IssuedToken, type Principal, type Role, type TokenEntry, type TokenSet } from './auth.js';
export type { HttpDeps, HttpGate, HttpOrg, PolicyEvaluator, RuleEdit, RulesAccess, RulesInForce } from './deps.js';
export { errorAnswer, HttpCode, HttpError, STATUS, statusFor, type ErrorBody } from './errors.js';
export { createExecutors, loadExecutors, type ExecutorAnswer, type ExecutorPayload, type Executors, type ExecutorsConfig, type ExecutorTarget } from './executors.js';
export { createMetrics, outcomeOf, type Metrics, type MetricsOptions, type Outcome } from './metrics.js';
export { expressGuard, guardHandler, type GuardOptions } from './middleware.js';
export { httpOptionsFrom } from './plangate.js';
export { ByteBudget, MIN_UPLOAD_RATE, type UploadRate } from './limits.js';
export { FairShares, shareOf, type ShareOptions } from './shares.js';
export { refusalBody, REFUSED_STATUS, type RefusalBody } from './refusal.js';
export { Router, type Match, type Method, type Reply, type Route, type RouteContext, type RouteModule } from './router.js';
export { DEFAULT_HOST, DEFAULT_PORT, listen, type ListenOptions, type RunningServer } from './server.js';
