/**
 * Sends calls with `fetch`: retries rate-limited ones (honouring `Retry-After`) and, for calls
 * safe to repeat, lost connections, timeouts and 502/503/504; throws the error of the last
 * answer. Redirects are never followed (`redirect: "manual"`): a 3xx throws
 * `MemlaneRedirectError`, so credentials only ever go to the `baseUrl`.
 */

import { MemlaneConnectionError, MemlaneError, MemlaneRedirectError, errorFrom } from "./errors.js";
import type { OperationKey, Operations } from "./openapi.js";
import type { SdkOperation } from "./operations.js";
import { WritePositions } from "./positions.js";
import { RetryPolicy, parseRetryAfter } from "./retry.js";

/** The `fetch` the client calls: the global one, or yours (proxies, TLS, tracing). It must
 * honour `redirect: "manual"`, as the standard `fetch` does. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** One HTTP call; `safeToRepeat`: doing it twice is the same as once, so it may be retried
 * after a 5xx or a lost connection (any call is retried after a 429). */
export interface Call {
  method: string;
  path: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  safeToRepeat: boolean;
  headers?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
}

type Has<K extends OperationKey, P extends string> = Operations[K] extends Record<P, infer T> ? T : never;

/** The JSON body of an operation of the OpenAPI document. */
export type Body<K extends OperationKey> = Has<K, "body">;
/** The query parameters of an operation of the OpenAPI document. */
export type Query<K extends OperationKey> = Has<K, "query">;
/** The path parameters of an operation of the OpenAPI document. */
export type PathParams<K extends OperationKey> = Has<K, "path">;
/** The 2xx answer of an operation of the OpenAPI document. */
export type Reply<K extends OperationKey> = Operations[K]["reply"];

/** What a call of operation `K` sends, typed by the document: path parameters are required
 * where the operation has them, and only the parts it has are accepted. */
export type Parts<K extends OperationKey> = (Operations[K] extends { path: infer P } ? { path: P } : { path?: never }) &
  (Operations[K] extends { query: infer Q } ? { query?: Q } : { query?: never }) &
  (Operations[K] extends { body: infer B } ? { body?: B } : { body?: never }) & {
    safeToRepeat: boolean;
    headers?: Record<string, string>;
    timeoutMs?: number;
  };

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? `: ${(cause as { code?: string }).code ?? cause.message}` : "";
  return `${error.message}${detail}`;
}

interface Answer {
  status: number;
  text: string;
}

export class Transport {
  constructor(
    readonly baseUrl: string,
    private readonly fetch: Fetch,
    private readonly retry: RetryPolicy,
    private readonly headers: Record<string, string>,
    private readonly timeoutMs: number,
    private readonly positions: WritePositions = new WritePositions(),
  ) {}

  /** Operation `key` of the OpenAPI document ("METHOD /path/{param}"), one of the SDK's
   * (src/operations.ts), its answer parsed. */
  async op<K extends SdkOperation>(key: K, parts: Parts<K>): Promise<Reply<K>> {
    const [method, template] = key.split(" ") as [string, string];
    const params = (parts.path ?? {}) as Record<string, unknown>;
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined || value === null || value === "") {
        throw new MemlaneError(`${key}: the path parameter ${name} is required`);
      }
      return encodeURIComponent(String(value));
    });
    const answer = await this.send({
      method,
      path,
      query: parts.query as Record<string, unknown> | undefined,
      body: parts.body,
      safeToRepeat: parts.safeToRepeat,
      headers: parts.headers,
      timeoutMs: parts.timeoutMs,
    });
    return this.parse(answer, `${method} ${path}`) as Reply<K>;
  }

  parse(answer: Answer, what: string): unknown {
    if (!answer.text) return undefined;
    try {
      return JSON.parse(answer.text);
    } catch {
      throw new MemlaneError(`${what}: the answer (${answer.status}) is not JSON`);
    }
  }

  url(call: Call): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item !== undefined && item !== null) search.append(name, String(item));
      }
    }
    const query = search.toString();
    return `${this.baseUrl}${call.path}${query ? `?${query}` : ""}`;
  }

  async send(call: Call): Promise<Answer> {
    const url = this.url(call);
    const hasBody = call.body !== undefined;
    const headers: Record<string, string> = {
      accept: "application/json",
      ...this.headers,
      ...this.positions.headers(),
      ...call.headers,
    };
    if (hasBody) headers["content-type"] = "application/json";
    const payload = hasBody ? JSON.stringify(call.body) : undefined;
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      let text: string;
      try {
        const init: RequestInit = { method: call.method, headers, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) };
        if (payload !== undefined) init.body = payload;
        response = await this.fetch(url, init);
        text = await response.text();
      } catch (error) {
        if (!this.retry.retryTransport(call.safeToRepeat, attempt)) {
          const why = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : describe(error);
          throw new MemlaneConnectionError(`${call.method} ${call.path}: ${why}`, { cause: error });
        }
        await sleep(this.retry.waitMs(attempt, null));
        continue;
      }
      const status = response.status;
      if (response.type === "opaqueredirect" || (status >= 300 && status < 400)) {
        throw new MemlaneRedirectError(status, response.headers.get("location"));
      }
      if (status >= 400) {
        const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
        if (this.retry.retryStatus(call.safeToRepeat, status, attempt)) {
          await sleep(this.retry.waitMs(attempt, retryAfterMs));
          continue;
        }
        throw errorFrom(status, text, response.statusText, retryAfterMs);
      }
      this.positions.note(response.headers);
      return { status, text };
    }
  }
}
