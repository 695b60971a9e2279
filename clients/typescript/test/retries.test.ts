// Retries, Retry-After and idempotency keys, against tiny HTTP servers of the test's own that
// answer what a busy memlane or a proxy in front of it would (429, 503, no answer at all).

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";

import {
  MemlaneClient,
  MemlaneConnectionError,
  RateLimitedError,
  RetryPolicy,
  ServerError,
  parseRetryAfter,
} from "memlane";

import { json, serve } from "./support/loopback.js";

const ACCEPTED = { task_id: "t1", status: "accepted", message: "queued", app_id: "a", user_id: "u", session_id: null };
const MESSAGES = [{ role: "user", content: "I adopted a dog named Rex" }];
const HEALTHY = { status: "healthy", sdk_initialized: true, service: "memlane" };
const FAST = { backoffMs: 1, maxWaitMs: 20 };

test("a 429 is retried after its Retry-After, with the same Idempotency-Key, until it succeeds", async () => {
  const server = await serve((_req, res, i) =>
    i < 2 ? json(res, 429, { detail: "slow down" }, { "retry-after": "0" }) : json(res, 202, ACCEPTED),
  );
  try {
    const c = new MemlaneClient({ baseUrl: server.url });
    const accepted = await c.addMemories({ app_id: "a", user_id: "u", messages: MESSAGES });
    assert.equal(accepted.task_id, "t1");
    assert.equal(server.received.length, 3);
    const keys = server.received.map((r) => r.headers["idempotency-key"]);
    assert.ok(keys[0], "the POST carries an Idempotency-Key");
    assert.deepEqual(new Set(keys).size, 1, "every retry carries the first key");
    assert.deepEqual(JSON.parse(server.received[2]?.body ?? ""), { app_id: "a", user_id: "u", messages: MESSAGES });
    assert.equal(server.received[0]?.headers["content-type"], "application/json");

    await c.addMemories({ app_id: "a", user_id: "u", messages: MESSAGES }, { idempotencyKey: "my-key-1" });
    const second = server.received.at(-1)?.headers["idempotency-key"];
    assert.equal(second, "my-key-1", "the caller's key is the one sent");
  } finally {
    await server.close();
  }
});

test("each call gets a key of its own", async () => {
  const server = await serve((_req, res) => json(res, 202, ACCEPTED));
  try {
    const c = new MemlaneClient({ baseUrl: server.url });
    await c.addMemories({ app_id: "a", user_id: "u", messages: MESSAGES });
    await c.addAgentMemory({ app_id: "a", user_id: "u", messages: "hi" });
    await c.summarize({ app_id: "a", user_id: "u", messages: "hi", callback_url: "https://hooks.example/x" });
    const keys = server.received.map((r) => r.headers["idempotency-key"]);
    assert.equal(keys.length, 3);
    assert.ok(keys.every(Boolean));
    assert.equal(new Set(keys).size, 3);
  } finally {
    await server.close();
  }
});

test("a summary without a callback carries no key: it queues nothing", async () => {
  const server = await serve((_req, res) => json(res, 200, { summary: "s" }));
  try {
    await new MemlaneClient({ baseUrl: server.url }).summarize({ app_id: "a", user_id: "u", messages: "hi" });
    assert.equal(server.received[0]?.headers["idempotency-key"], undefined);
  } finally {
    await server.close();
  }
});

test("a 429 still there after the retries throws RateLimitedError with the server's Retry-After", async () => {
  const server = await serve((_req, res) =>
    json(res, 429, { success: false, errorCode: "RATE_LIMITED", message: "slow down", retryable: true }, { "retry-after": "0.01" }),
  );
  try {
    const c = new MemlaneClient({ baseUrl: server.url, retry: { maxRetries: 2 } });
    await assert.rejects(c.tools.memoryAdd("x"), (error: unknown) => {
      assert.ok(error instanceof RateLimitedError);
      assert.equal(error.retryAfterMs, 10);
      assert.equal(error.code, "RATE_LIMITED");
      assert.equal(error.envelope.retryable, true);
      return true;
    });
    assert.equal(server.received.length, 3, "the first attempt and two retries");
  } finally {
    await server.close();
  }
});

test("a Retry-After longer than maxWaitMs waits maxWaitMs, and one that is not a time falls back to the backoff", async () => {
  for (const retryAfter of ["86400", "Wed, 21 Oct 2099 07:28:00 GMT", "nan", "inf", "-1", "soon"]) {
    const server = await serve((_req, res, i) =>
      i === 0 ? json(res, 429, { error: "rate_limited", message: "wait" }, { "retry-after": retryAfter }) : json(res, 200, HEALTHY),
    );
    try {
      // a day-long or unparsable wait would hang this test or throw: it finishes with the answer
      const c = new MemlaneClient({ baseUrl: server.url, retry: FAST });
      assert.equal((await c.health()).status, "healthy", retryAfter);
      assert.equal(server.received.length, 2, retryAfter);
    } finally {
      await server.close();
    }
  }
});

test("a 503 is retried for a read and for a keyed POST, never for a write without a key", async () => {
  // every path is unavailable at its first request; a retried one then succeeds
  const seen = new Set<string>();
  const server = await serve((req, res) => {
    if (!seen.has(req.url)) {
      seen.add(req.url);
      return json(res, 503, { error: "backlog_full", message: "busy" }, { "retry-after": "0" });
    }
    return req.url === "/health" ? json(res, 200, HEALTHY) : json(res, 202, ACCEPTED);
  });
  try {
    const c = new MemlaneClient({ baseUrl: server.url, retry: FAST });
    assert.equal((await c.health()).status, "healthy");
    assert.equal((await c.addMemories({ app_id: "a", user_id: "u", messages: MESSAGES })).task_id, "t1");
    assert.equal(server.received.length, 4);
    await assert.rejects(c.write({ input_text: "x", nodes: [] }), ServerError);
    await assert.rejects(c.tools.memoryAdd("x"), ServerError);
    assert.equal(server.received.length, 6, "each write was sent once");
  } finally {
    await server.close();
  }
});

test("retries off: the first 429 throws", async () => {
  const server = await serve((_req, res) => json(res, 429, { detail: "no" }, { "retry-after": "1" }));
  try {
    const c = new MemlaneClient({ baseUrl: server.url, retry: new RetryPolicy({ maxRetries: 0 }) });
    await assert.rejects(c.health(), (error: unknown) => error instanceof RateLimitedError && error.retryAfterMs === 1000);
    assert.equal(server.received.length, 1);
  } finally {
    await server.close();
  }
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const address = probe.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((done) => probe.close(done));
  return port;
}

test("an unreachable server is a MemlaneConnectionError after the retries, and a write is tried once", async () => {
  let attempts = 0;
  const counting: typeof fetch = (input, init) => {
    attempts++;
    return fetch(input, init);
  };
  const c = new MemlaneClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, retry: { maxRetries: 2, ...FAST }, fetch: counting });
  await assert.rejects(c.health(), MemlaneConnectionError);
  assert.equal(attempts, 3, "the read was tried three times");
  await assert.rejects(c.write({ input_text: "x", nodes: [] }), MemlaneConnectionError);
  assert.equal(attempts, 4, "the write once");
});

test("a server that does not answer in time is a MemlaneConnectionError naming the timeout", async () => {
  const silent = await serve(() => {
    // never answers
  });
  try {
    const c = new MemlaneClient({ baseUrl: silent.url, timeoutMs: 100, retry: { maxRetries: 1, ...FAST } });
    await assert.rejects(c.health(), (error: unknown) => {
      assert.ok(error instanceof MemlaneConnectionError);
      assert.match(error.message, /no answer within 100 ms/);
      return true;
    });
    assert.equal(silent.received.length, 2, "a read is retried after a timeout");
  } finally {
    await silent.close();
  }
});

test("Retry-After: seconds or an HTTP date; nan, inf, negatives and other text are no value", () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  assert.equal(parseRetryAfter("3", now), 3000);
  assert.equal(parseRetryAfter(" 1.5 ", now), 1500);
  assert.equal(parseRetryAfter("0", now), 0);
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 12:00:10 GMT", now), 10_000);
  assert.equal(parseRetryAfter("Thursday, 01-Jan-26 12:00:10 GMT", now), 10_000);
  assert.equal(parseRetryAfter("Thu Jan  1 12:00:10 2026", now), 10_000);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now), 0, "a past date is now");
  for (const bad of ["nan", "NaN", "inf", "Infinity", "-1", "-0.5", "1e999", "soon", "1 2", "Thu, 31 Feb 2026 12:00:00 GMT", "", null]) {
    assert.equal(parseRetryAfter(bad, now), null, String(bad));
  }
});

test("waits: Retry-After when usable, else exponential backoff, never more than maxWaitMs", () => {
  const policy = new RetryPolicy({ maxRetries: 3, backoffMs: 500, maxWaitMs: 10_000 });
  assert.equal(policy.waitMs(0, 2000), 2000);
  assert.equal(policy.waitMs(0, 999_000), 10_000);
  assert.equal(policy.waitMs(2, null), 2000);
  assert.equal(policy.waitMs(200, null), 10_000);
  assert.equal(policy.waitMs(0, Number.NaN), 500);
  assert.ok(policy.retryStatus(false, 429, 0) && policy.retryStatus(true, 503, 2));
  assert.ok(!policy.retryStatus(false, 503, 0), "a write without an Idempotency-Key is not repeated");
  assert.ok(!policy.retryStatus(true, 500, 0) && !policy.retryStatus(true, 429, 3));
});
