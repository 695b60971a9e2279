// Credentials decide identity on a server with API-key auth; an Idempotency-Key makes a
// repeated POST return the first task (real memlane servers).

import assert from "node:assert/strict";
import { test } from "node:test";

import { AuthenticationError, BadRequestError, ConflictError, MemlaneClient } from "memlane";

import { KEYED_URL, KEYS, MEMLANE_URL, unique } from "./support/servers.js";

const MESSAGES = [{ role: "user", content: "I adopted a dog named Rex" }];
const [USER_KEY, PROJECT_KEY] = Object.keys(KEYS) as [string, string];

test("an API key acts for the identity it carries, and keeps and recalls that identity's memory", async () => {
  const c = new MemlaneClient({ baseUrl: KEYED_URL, apiKey: USER_KEY });
  const added = await c.tools.memoryAdd("The key's user likes green tea");
  assert.equal(added.identity?.source, "credentials");
  assert.deepEqual([added.identity?.tenant, added.identity?.agent, added.identity?.user], [
    KEYS[USER_KEY]?.tenant_id,
    KEYS[USER_KEY]?.agent_id,
    KEYS[USER_KEY]?.user_id,
  ]);
  const found = await c.tools.memorySearch("What does the user drink?", { threshold: 0 });
  assert.ok(found.results.some((r) => r.memoryId === added.memoryId), JSON.stringify(found));

  const accepted = await c.addMemories({ app_id: unique("app"), user_id: "user-7", messages: MESSAGES });
  assert.equal((await c.waitForTask(accepted.task_id)).status, "completed");
});

test("a key without a user is told to use credentials issued for one for personal memory", async () => {
  const c = new MemlaneClient({ baseUrl: KEYED_URL, apiKey: PROJECT_KEY });
  await assert.rejects(c.tools.memoryAdd("a personal fact"), (error: unknown) => {
    assert.ok(error instanceof BadRequestError);
    assert.match(error.message, /credentials \(API key or JWT\) issued for a user/);
    return true;
  });
  assert.equal((await c.tools.memoryAdd("a project fact", { layer: "project" })).success, true);
});

test("no key, or a wrong one, is an AuthenticationError in each surface's envelope", async () => {
  for (const c of [new MemlaneClient({ baseUrl: KEYED_URL }), new MemlaneClient({ baseUrl: KEYED_URL, apiKey: "k-wrong" })]) {
    const conversation = await c.queryMemories({ app_id: "a", query: "x" }).catch((e: unknown) => e);
    assert.ok(conversation instanceof AuthenticationError);
    assert.deepEqual(Object.keys(conversation.envelope), ["detail"]);
    const graph = await c.recallText({ query_text: "x" }).catch((e: unknown) => e);
    assert.ok(graph instanceof AuthenticationError);
    assert.equal(graph.code, graph.envelope.error);
    const tools = await c.tools.memorySearch("x").catch((e: unknown) => e);
    assert.ok(tools instanceof AuthenticationError);
    assert.equal(tools.code, tools.envelope.errorCode);
  }
});

test("the same Idempotency-Key returns the first task; reused for another body it is a ConflictError", async () => {
  const c = new MemlaneClient({ baseUrl: MEMLANE_URL, tenantId: unique("t") });
  const key = unique("key");
  const body = { app_id: "chat", user_id: "alice", messages: MESSAGES };
  const first = await c.addMemories(body, { idempotencyKey: key });
  const again = await c.addMemories(body, { idempotencyKey: key });
  assert.equal(again.task_id, first.task_id);
  const other = await c.addMemories(body);
  assert.notEqual(other.task_id, first.task_id, "without the key it is a new task");
  await assert.rejects(
    c.addMemories({ ...body, messages: [{ role: "user", content: "something else" }] }, { idempotencyKey: key }),
    ConflictError,
  );
});
