// A memlane error answer throws the class of its status, carrying the surface's envelope as it came.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BadRequestError,
  ConflictError,
  MemlaneAPIError,
  MemlaneError,
  MemlaneTimeoutError,
  NotFoundError,
  PermissionDeniedError,
  ServerError,
} from "memlane";
import { MemlaneClient } from "memlane";

import { json, serve } from "./support/loopback.js";
import { MEMLANE_URL, unique } from "./support/servers.js";

const client = (options: ConstructorParameters<typeof MemlaneClient>[0] = {}) =>
  new MemlaneClient({ baseUrl: MEMLANE_URL, tenantId: unique("t"), ...options });

async function thrown<E extends Error>(promise: Promise<unknown>, Class: new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Class, `expected ${Class.name}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${Class.name}, nothing was thrown`);
}

test("graph: a write without provenance is a BadRequestError naming the field, in {error, message}", async () => {
  const error = await thrown(client().write({ nodes: [] }), BadRequestError);
  assert.equal(error.statusCode, 400);
  assert.equal(error.code, error.envelope.error);
  assert.match(error.message, /input_text/);
  assert.ok(error instanceof MemlaneAPIError && error instanceof MemlaneError && error instanceof Error);
  assert.equal(error.name, "BadRequestError");
});

test("conversation: an unknown memory is a NotFoundError whose envelope is {detail} and code the status's name", async () => {
  const error = await thrown(client().getMemory("no-such-id", { app_id: "chat" }), NotFoundError);
  assert.deepEqual(Object.keys(error.envelope), ["detail"]);
  assert.equal(error.code, "not_found");
  assert.equal(error.message, error.envelope.detail);
});

test("layered: the user-facing agent reading workspace memory is a PermissionDeniedError with error_type", async () => {
  const error = await thrown(client().layers.read({ layer: "workspace", task_id: "t1" }), PermissionDeniedError);
  assert.equal(error.envelope.success, false);
  assert.equal(error.code, "workspace_restricted");
  assert.equal(error.code, error.envelope.error_type);
});

test("tools: an unknown knowledge item is a NotFoundError with errorCode, retryable and details", async () => {
  const error = await thrown(client().tools.knowledgeShow("adr-999"), NotFoundError);
  assert.equal(error.code, "NOT_FOUND");
  assert.equal(error.envelope.retryable, false);
  assert.equal(error.details.requestedId, "adr-999");
});

test("knowledge: creating an item twice is a ConflictError", async () => {
  const c = client();
  const item = { id: unique("adr"), type: "adr", layer: "project", title: "Once" } as const;
  await c.knowledge.createItem(item);
  const error = await thrown(c.knowledge.createItem(item), ConflictError);
  assert.equal(error.statusCode, 409);
});

test("an answer that is not JSON still throws its status's class, its text as the detail", async () => {
  const broken = await serve((_req, res) => {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end("upstream exploded");
  });
  try {
    const c = new MemlaneClient({ baseUrl: broken.url, retry: { maxRetries: 0 } });
    const error = await thrown(c.health(), ServerError);
    assert.deepEqual(error.envelope, { detail: "upstream exploded" });
    assert.equal(error.code, "internal_error");
  } finally {
    await broken.close();
  }
});

test("waitForTask gives up with MemlaneTimeoutError while the task is still running", async () => {
  const running = await serve((_req, res) => json(res, 200, { task_id: "t1", kind: "memory_creation", status: "running" }));
  try {
    const c = new MemlaneClient({ baseUrl: running.url });
    const error = await thrown(c.waitForTask("t1", { timeoutMs: 50, pollMs: 10 }), MemlaneTimeoutError);
    assert.equal(error.taskId, "t1");
    assert.equal(error.status, "running");
    assert.ok(running.received.every((r) => r.url === "/api/v1/tasks/t1"));
  } finally {
    await running.close();
  }
});
