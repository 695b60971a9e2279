/**
 * What the SDK throws: one class per kind of failure, each carrying the answer's error
 * envelope as the surface wrote it (graph `{error, message}`, conversation `{detail}`,
 * layered `{success: false, error_type, message}`, tools and knowledge
 * `{success: false, errorCode, message, retryable}`). The same classes as the Python SDK's
 * `memlane.client.errors`, so code and docs carry over.
 */

/** The envelope of an error answer, as it came (any JSON object). */
export type ErrorEnvelope = Record<string, unknown>;

/** Anything the SDK throws. */
export class MemlaneError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The server could not be reached, or did not answer in time, retries included. */
export class MemlaneConnectionError extends MemlaneError {}

/**
 * The answer was a redirect (3xx), which the SDK never follows: the credentials it sends
 * would go with it to wherever `location` points. memlane itself does not redirect; a proxy in
 * front of it might (`http://` -> `https://`): use the final address as the `baseUrl`.
 * In a browser the redirect is opaque: `statusCode` is 0 and `location` null.
 */
export class MemlaneRedirectError extends MemlaneError {
  readonly statusCode: number;
  readonly location: string | null;

  constructor(statusCode: number, location: string | null) {
    super(
      `${statusCode} redirect to ${location ?? "(no location)"} not followed: ` +
        "the SDK sends credentials only to its baseUrl; point baseUrl at the final address",
    );
    this.statusCode = statusCode;
    this.location = location;
  }
}

/** `waitForTask` gave up: the task was still queued or running when the time was up. */
export class MemlaneTimeoutError extends MemlaneError {
  readonly taskId: string;
  readonly status: string;

  constructor(taskId: string, status: string, timeoutMs: number) {
    super(`task ${taskId} is still ${status} after ${timeoutMs} ms`);
    this.taskId = taskId;
    this.status = status;
  }
}

/** The status names used as `code` when the envelope has none (the conversation surface). */
export const STATUS_CODES: Readonly<Record<number, string>> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  429: "rate_limited",
  500: "internal_error",
  502: "bad_gateway",
  503: "unavailable",
  504: "timeout",
};

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return JSON.stringify(value);
}

/**
 * The server answered with an error status.
 *
 * `code` is the envelope's machine-readable code (`error`, `errorCode` or `error_type`; the
 * conversation surface has none, so the status's name), `message` its text (`message` or
 * `detail`), `envelope` the whole body, `details` its details, `retryAfterMs` the answer's
 * `Retry-After` in milliseconds when it had a usable one.
 */
export class MemlaneAPIError extends MemlaneError {
  readonly statusCode: number;
  readonly envelope: ErrorEnvelope;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly retryAfterMs: number | null;

  constructor(statusCode: number, envelope: ErrorEnvelope, retryAfterMs: number | null = null) {
    super(text(envelope.message ?? envelope.detail));
    this.statusCode = statusCode;
    this.envelope = envelope;
    this.code = String(
      envelope.error || envelope.errorCode || envelope.error_type || STATUS_CODES[statusCode] || "http_error",
    );
    const details = envelope.details;
    this.details =
      details !== null && typeof details === "object" && !Array.isArray(details)
        ? (details as Record<string, unknown>)
        : {};
    this.retryAfterMs = retryAfterMs;
  }

  override toString(): string {
    return `${this.name}: ${this.statusCode} ${this.code}: ${this.message}`;
  }
}

/** 400: the request is invalid; the message names the field. */
export class BadRequestError extends MemlaneAPIError {}

/** 401: no or wrong credentials. */
export class AuthenticationError extends MemlaneAPIError {}

/** 403: the credentials may not do this (another tenant, identity mismatch...). */
export class PermissionDeniedError extends MemlaneAPIError {}

/** 404. */
export class NotFoundError extends MemlaneAPIError {}

/** 409: e.g. an Idempotency-Key reused for a different request. */
export class ConflictError extends MemlaneAPIError {}

/** 413. */
export class PayloadTooLargeError extends MemlaneAPIError {}

/** 429, after the retries; `retryAfterMs` says how long the server asked to wait. */
export class RateLimitedError extends MemlaneAPIError {}

/** 5xx, after the retries where a retry was safe. */
export class ServerError extends MemlaneAPIError {}

const CLASSES: Readonly<Record<number, typeof MemlaneAPIError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  429: RateLimitedError,
};

/**
 * The error for an answer with an error status: its body when it is a JSON object, else
 * `{detail: <the body's text, or the status text>}`.
 */
export function errorFrom(
  statusCode: number,
  bodyText: string,
  statusText: string,
  retryAfterMs: number | null,
): MemlaneAPIError {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  const envelope: ErrorEnvelope =
    body !== null && typeof body === "object" && !Array.isArray(body)
      ? (body as ErrorEnvelope)
      : { detail: bodyText || statusText };
  const Class = CLASSES[statusCode] ?? (statusCode >= 500 ? ServerError : MemlaneAPIError);
  return new Class(statusCode, envelope, retryAfterMs);
}
