// The SDK keeps and recalls memory through a real memlane server, on every surface.

import assert from "node:assert/strict";
import { test } from "node:test";

import { MemlaneClient, NotFoundError, type RecallTextReply } from "memlane";

import { MEMLANE_URL, unique } from "./support/servers.js";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function client(options: ConstructorParameters<typeof MemlaneClient>[0] = {}): MemlaneClient {
  return new MemlaneClient({ baseUrl: MEMLANE_URL, tenantId: unique("t"), ...options });
}

/** Nodes are embedded by a background job shortly after the write (docs/sdk.md): recall until they are. */
async function recallUntilSeen(c: MemlaneClient, query: string, scope: string): Promise<RecallTextReply> {
  for (let i = 0; i < 200; i++) {
    const recalled = await c.recallText({ query_text: query, scope });
    if (recalled.seeds.length) return recalled;
    await sleep(50);
  }
  assert.fail(`nothing recalled for ${JSON.stringify(query)} in ${scope}`);
}

test("a graph write is recalled by text once embedded", async () => {
  const c = client();
  const written = await c.write({
    scope: "notes",
    input_text: "onboarding chat",
    memory_lane: "shared",
    nodes: [
      { client_id: "alice", type: "entity", title: "Alice", text_summary: "Alice is a rock climber" },
      { client_id: "trip", type: "event", title: "Yosemite", text_summary: "Alice climbed El Capitan in May" },
    ],
    edges: [{ type: "part_of", src: { client_id: "trip" }, dst: { client_id: "alice" } }],
  });
  assert.equal(written.scope, "notes");
  assert.deepEqual(written.nodes.map((n) => n.client_id).sort(), ["alice", "trip"]);
  assert.equal(written.edges.length, 1);

  const recalled = await recallUntilSeen(c, "What did Alice climb?", "notes");
  const texts = recalled.seeds.map((s) => s.text_summary);
  assert.ok(texts.includes("Alice climbed El Capitan in May"), JSON.stringify(texts));
  assert.equal(recalled.scope, "notes");
  assert.ok(recalled.subgraph.nodes.length >= 1);
});

test("another tenant recalls nothing of it", async () => {
  const owner = client();
  await owner.write({
    scope: "private-notes",
    input_text: "chat",
    memory_lane: "shared",
    nodes: [{ type: "event", title: "Secret", text_summary: "Bob hid the key under the mat" }],
  });
  await recallUntilSeen(owner, "Where is the key?", "private-notes");
  const stranger = client();
  const recalled = await stranger.recallText({ query_text: "Where is the key?", scope: "private-notes" });
  assert.deepEqual(recalled.seeds, []);
});

test("conversation messages become notes: addMemories, waitForTask, queryMemories, get, evolution, delete", async () => {
  const c = client();
  const accepted = await c.addMemories({
    app_id: "chat",
    user_id: "alice",
    messages: [
      { role: "user", content: "I moved to Lisbon last year" },
      { role: "assistant", content: "How do you like it there?" },
    ],
  });
  assert.equal(accepted.app_id, "chat");
  const task = await c.waitForTask(accepted.task_id, { timeoutMs: 60_000 });
  assert.equal(task.status, "completed", JSON.stringify(task));

  const found = await c.queryMemories({ app_id: "chat", user_id: "alice", query: "Where does Alice live?" });
  assert.ok(found.count >= 1);
  const note = found.memories.find((m) => m.document.includes("Lisbon"));
  assert.ok(note, JSON.stringify(found.memories));

  const memory = await c.getMemory(note.memory_id, { app_id: "chat" });
  assert.equal(memory.memory_id, note.memory_id);
  const chain = await c.memoryEvolution(note.memory_id, { app_id: "chat" });
  assert.ok(chain.memories.some((m) => m.memory_id === note.memory_id));

  const deleted = await c.deleteMemory(note.memory_id, { app_id: "chat" });
  assert.equal(deleted.success, true);
  await assert.rejects(c.getMemory(note.memory_id, { app_id: "chat" }), NotFoundError);
});

test("agent memories, summaries and the memory batcher", async () => {
  const c = client();
  const agent = await c.addAgentMemory({ app_id: "agent", user_id: "u1", messages: "User: I prefer tea over coffee" });
  assert.equal((await c.waitForTask(agent.task_id)).status, "completed");

  const summary = await c.summarize({
    app_id: "agent",
    user_id: "u1",
    messages: [{ role: "user", content: "We planned the Lisbon trip for March" }],
  });
  assert.ok("summary" in summary && summary.summary.length > 0, JSON.stringify(summary));

  const buffered = await c.batchAddMessages({
    app_id: "agent",
    user_id: "u1",
    messages: [{ role: "user", content: "first of a batch" }],
  });
  assert.equal(buffered.pending_messages, 1);
  const buffer = await c.batcherBuffer({ app_id: "agent", user_id: "u1" });
  assert.equal(buffer.pending_messages, 1);
});

test("layered memory: write, read, search, update, delete, complete a workspace task", async () => {
  // with auth off the role is the X-Agent-Role header; the manager may write project memory
  const c = client({ agentId: "planner", headers: { "X-Agent-Role": "manager" } });
  const written = await c.layers.write({
    layer: "project",
    title: "Deploy day",
    content: "Deploys happen on Tuesday afternoons",
  });
  assert.equal(written.success, true);

  const read = await c.layers.read({ layer: "project", id: written.id });
  assert.equal(read.results[0]?.content, "Deploys happen on Tuesday afternoons");
  const searched = await c.layers.search({ query: "When do deploys happen?", layer: "project" });
  assert.ok(searched.results.some((r) => r.id === written.id), JSON.stringify(searched.results));

  assert.equal((await c.layers.update({ id: written.id, new_content: "Deploys happen on Wednesdays" })).success, true);
  const reread = await c.layers.read({ layer: "project", id: written.id });
  assert.equal(reread.results[0]?.content, "Deploys happen on Wednesdays");
  assert.equal((await c.layers.delete({ id: written.id })).success, true);
  await assert.rejects(c.layers.read({ layer: "project", id: written.id }), NotFoundError);

  const task = unique("task");
  await c.layers.write({ layer: "workspace", title: "step", content: "fetched the logs", metadata: { task_id: task } });
  const done = await c.layers.completeTask(task);
  assert.equal(done.task_id, task);
  assert.equal(done.deleted, 1);
});

test("agent tools: memoryAdd, memorySearch, memoryDelete, each saying whom it acted for", async () => {
  const c = client({ userId: "alice" });
  const added = await c.tools.memoryAdd("User prefers functional programming patterns over OOP", { tags: ["style"] });
  assert.equal(added.success, true);
  assert.match(added.memoryId, /^mem_/);
  assert.equal(added.identity?.source, "headers");
  assert.equal(added.identity?.user, "alice");

  const found = await c.tools.memorySearch("What are the user's coding preferences?", { threshold: 0 });
  const hit = found.results.find((r) => r.memoryId === added.memoryId);
  assert.ok(hit, JSON.stringify(found));
  assert.equal(hit.layer, "user");
  assert.deepEqual(hit.tags, ["style"]);
  assert.ok(found.searchedLayers.includes("user"));
  assert.ok(found.totalCount >= 1);

  const byTag = await c.tools.memorySearch("coding", { threshold: 0, filter: { tags: ["nope"] } });
  assert.equal(byTag.totalCount, 0);

  assert.equal((await c.tools.memoryDelete(added.memoryId)).success, true);
  await assert.rejects(c.tools.memoryDelete(added.memoryId), NotFoundError);
});

test("the tool catalogue and any tool by name", async () => {
  const c = client();
  const catalogue = await c.tools.listTools();
  assert.ok(catalogue.tools.some((t) => t.name === "memory_add"));
  const raw = await c.tools.call("memory_add", { content: "Raw calls reach the tool too" });
  assert.equal(raw.success, true);
});

test("the knowledge repository: create, get, update, history, query, check, show, delete, import", async () => {
  const c = client({ agentId: "architect" });
  const id = unique("adr");
  const created = await c.knowledge.createItem({
    id,
    type: "adr",
    layer: "project",
    title: "No moment.js",
    content: "Use date-fns instead of moment.",
    status: "accepted",
    constraints: [{ operator: "must_not_use", target: "dependency", pattern: "^moment$", severity: "block" }],
  });
  assert.equal(created.item.id, id);
  assert.equal((await c.knowledge.getItem(id)).item.title, "No moment.js");
  assert.equal((await c.knowledge.updateItem(id, { title: "Never moment.js", message: "sharper" })).item.title, "Never moment.js");
  assert.ok((await c.knowledge.history(id)).history.length >= 2);
  assert.ok((await c.knowledge.listItems({ type: ["adr"] })).items.some((i) => i.id === id));

  const check = await c.tools.knowledgeCheck({ dependencies: [{ name: "moment", version: "2.29.0" }] });
  assert.equal(check.passed, false);
  assert.ok(check.violations.some((v) => v.knowledgeItemId === id));
  const shown = await c.tools.knowledgeShow(id, { includeHistory: true });
  assert.equal(shown.item?.id, id);
  const queried = await c.tools.knowledgeQuery("moment");
  assert.ok(queried.items.some((i) => i.id === id), JSON.stringify(queried));

  const synced = await c.tools.syncNow();
  assert.equal(synced.success, true);
  assert.equal((await c.tools.syncStatus()).healthy, true);

  assert.equal((await c.knowledge.deleteItem(id)).success, true);
  await assert.rejects(c.knowledge.getItem(id), NotFoundError);

  const imported = await c.knowledge.importDocuments([
    { path: "adr-7.md", content: `---\nid: ${id}-imported\ntitle: Imported\n---\nFrom a Markdown file.` },
  ]);
  assert.equal(imported.success, true);
});

test("graph rules, tool selection, feedback, activation and rehydration", async () => {
  const c = client();
  const written = await c.write({
    scope: "rules",
    input_text: "policy",
    memory_lane: "shared",
    nodes: [
      {
        client_id: "no-shell",
        type: "rule",
        title: "No shell in prod",
        text_summary: "Never run shell commands in production",
        slots: { if: { env: "prod" }, then: { tool: { deny: ["shell"] } } },
      },
    ],
  });
  const ruleId = written.nodes[0]?.id;
  assert.ok(ruleId);
  // a write makes a draft; only rules/state moves it, through shadow to active
  assert.equal((await c.setRuleState({ scope: "rules", rule_node_id: ruleId, state: "shadow", input_text: "review" })).state, "shadow");
  assert.equal((await c.setRuleState({ scope: "rules", rule_node_id: ruleId, state: "active", input_text: "ship" })).state, "active");

  const evaluated = await c.evaluateRules({ scope: "rules", context: { env: "prod" } });
  assert.equal(evaluated.matched, 1, JSON.stringify(evaluated));
  const selected = await c.selectTools({ scope: "rules", context: { env: "prod" }, candidates: ["shell", "http"] });
  assert.deepEqual(selected.selection.allowed, ["http"]);
  const feedback = await c.feedback({ scope: "rules", rule_node_id: ruleId, outcome: "positive", input_text: "ok" });
  assert.equal(feedback.tenant_id, written.tenant_id);
  const toolFeedback = await c.toolFeedback({
    scope: "rules",
    context: { env: "prod" },
    candidates: ["shell", "http"],
    selected_tool: "http",
    outcome: "positive",
    input_text: "ok",
  });
  assert.equal(toolFeedback.ok, true);
  const activated = await c.activate({ scope: "rules", node_ids: [ruleId], input_text: "used it" });
  assert.equal(activated.activated.found, 1);
  const rehydrated = await c.rehydrate({ scope: "rules", node_ids: [ruleId], input_text: "back" });
  assert.equal(rehydrated.tenant_id, written.tenant_id);
  const vector = await c.recall({ scope: "rules", query_embedding: Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0)) });
  assert.equal(vector.scope, "rules");
});

test("health, info and pool stats", async () => {
  const c = client();
  assert.equal((await c.health()).status, "healthy");
  assert.equal((await c.info()).name.toLowerCase().includes("memlane"), true);
  assert.equal(typeof (await c.poolStats()).max_connections, "number");
});
