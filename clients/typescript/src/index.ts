/**
 * memlane's TypeScript SDK: `MemlaneClient`, typed methods for every operation of the four
 * surfaces (README.md). ES module, no dependency beyond `fetch`.
 */

export {
  type ClientOptions,
  type IdempotentOptions,
  Knowledge,
  Layers,
  MemlaneClient,
  Tools,
  type WaitOptions,
} from "./client.js";
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type ErrorEnvelope,
  MemlaneAPIError,
  MemlaneConnectionError,
  MemlaneError,
  MemlaneRedirectError,
  MemlaneTimeoutError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitedError,
  STATUS_CODES,
  ServerError,
} from "./errors.js";
export * from "./openapi.js";
export { COMPOSITE_METHODS, OPERATIONS, type SdkOperation } from "./operations.js";
export { RetryPolicy, type RetryOptions, parseRetryAfter } from "./retry.js";
export type * from "./tool-results.js";
export type { Body, Fetch, PathParams, Query, Reply } from "./transport.js";
