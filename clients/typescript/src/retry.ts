/**
 * Which failures are retried and how long to wait: the same rules as the Python SDK
 * (`memlane.client._core`), in milliseconds.
 */

/** Rate limited: the server refused the request, so retrying is always safe. */
export const RATE_LIMITED = 429;
/** The server or a proxy in front of it is unavailable: retried only when a repeat is safe. */
export const UNAVAILABLE: ReadonlySet<number> = new Set([502, 503, 504]);

export interface RetryOptions {
  /** Retries after the first attempt (0 turns retries off). Default 3. */
  maxRetries?: number | undefined;
  /** The first backoff, doubled at each retry, when the answer has no usable Retry-After. Default 500. */
  backoffMs?: number | undefined;
  /** No wait is longer than this, whatever Retry-After says. Default 60000. */
  maxWaitMs?: number | undefined;
}

export class RetryPolicy {
  readonly maxRetries: number;
  readonly backoffMs: number;
  readonly maxWaitMs: number;

  constructor({ maxRetries = 3, backoffMs = 500, maxWaitMs = 60_000 }: RetryOptions = {}) {
    this.maxRetries = maxRetries;
    this.backoffMs = backoffMs;
    this.maxWaitMs = maxWaitMs;
  }

  /** `Retry-After` when the server sent a usable one, else exponential backoff; never more than `maxWaitMs`. */
  waitMs(attempt: number, retryAfterMs: number | null): number {
    if (retryAfterMs !== null && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
      return Math.min(retryAfterMs, this.maxWaitMs);
    }
    return Math.min(this.backoffMs * 2 ** Math.min(attempt, 64), this.maxWaitMs);
  }

  /**
   * Retry an answer with this status? Any call after a 429; after 502/503/504 only a call
   * `safeToRepeat` (a read, a delete, a POST carrying an Idempotency-Key).
   */
  retryStatus(safeToRepeat: boolean, status: number, attempt: number): boolean {
    if (attempt >= this.maxRetries) return false;
    return status === RATE_LIMITED || (UNAVAILABLE.has(status) && safeToRepeat);
  }

  /** Retry after a lost connection or a timeout? Only a call safe to repeat: the first may have been applied. */
  retryTransport(safeToRepeat: boolean, attempt: number): boolean {
    return attempt < this.maxRetries && safeToRepeat;
  }
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
// RFC 9110 section 5.6.7: IMF-fixdate, then the two obsolete forms a recipient must accept
const IMF_FIXDATE = /^[a-z]{3}, (?<day>\d{2}) (?<month>[a-z]{3}) (?<year>\d{4}) (?<h>\d{2}):(?<m>\d{2}):(?<s>\d{2}) GMT$/i;
const RFC850_DATE = /^[a-z]{6,9}, (?<day>\d{2})-(?<month>[a-z]{3})-(?<year>\d{2}) (?<h>\d{2}):(?<m>\d{2}):(?<s>\d{2}) GMT$/i;
const ASCTIME_DATE = /^[a-z]{3} (?<month>[a-z]{3}) (?<day>[ \d]\d) (?<h>\d{2}):(?<m>\d{2}):(?<s>\d{2}) (?<year>\d{4})$/i;

/** An HTTP date as epoch milliseconds, or null when it is not one. */
function httpDate(raw: string, nowMs: number): number | null {
  const g = (IMF_FIXDATE.exec(raw) ?? RFC850_DATE.exec(raw) ?? ASCTIME_DATE.exec(raw))?.groups;
  if (!g) return null;
  const [day, month, h, m, s] = [Number(g.day), MONTHS.indexOf(String(g.month).toLowerCase()), Number(g.h),
    Number(g.m), Number(g.s)];
  let year = Number(g.year);
  if (String(g.year).length === 2) {
    // RFC 850's two-digit year: one more than 50 years ahead is in the past century
    const thisYear = new Date(nowMs).getUTCFullYear();
    year += Math.floor(thisYear / 100) * 100;
    if (year > thisYear + 50) year -= 100;
  }
  if (month < 0 || h > 23 || m > 59 || s > 60) return null;
  const when = Date.UTC(year, month, day, h, m, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March: a date that does not exist is not one
  return new Date(when).getUTCDate() === day ? when : null;
}

/**
 * `Retry-After` as milliseconds, or null when the value is not usable.
 *
 * RFC 9110 allows a number of seconds or an HTTP date (a past date means now). Whatever else a
 * server or a proxy in front of it sends (`nan`, `inf`, a negative number, a date that is not
 * one) is null, so the caller falls back to its own backoff; `RetryPolicy.waitMs` bounds every
 * wait by `maxWaitMs`.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | null {
  const raw = (value ?? "").trim();
  if (!raw) return null;
  if (DECIMAL.test(raw)) {
    const seconds = Number(raw);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
  }
  const when = httpDate(raw, nowMs);
  return when === null ? null : Math.max(0, when - nowMs);
}
