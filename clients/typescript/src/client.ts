/**
 * `MemlaneClient`: the Python SDK's `MemlaneClient` in TypeScript's conventions. The graph and
 * conversation surfaces are methods, the layered surface is `.layers`, the agent tools
 * `.tools` and the knowledge repository `.knowledge`. Requests and answers are typed by the
 * server's OpenAPI document (src/openapi.ts): field names are the wire's, as in `/docs`.
 */

import { MemlaneTimeoutError } from "./errors.js";
import type * as api from "./openapi.js";
import { WritePositions } from "./positions.js";
import { RetryPolicy, type RetryOptions } from "./retry.js";
import type * as tr from "./tool-results.js";
import { type Body, type Fetch, type Query, Transport } from "./transport.js";

export interface ClientOptions {
  /** The server, e.g. `http://127.0.0.1:8000` (the default); a path prefix is kept. */
  baseUrl?: string | undefined;
  /** Sent as `X-Api-Key`. */
  apiKey?: string | undefined;
  /** Sent as `Authorization: Bearer <jwt>`. */
  jwt?: string | undefined;
  /** With auth off, sent as `X-Tenant-Id` on every call (with auth on, identity comes from the credentials). */
  tenantId?: string | undefined;
  /** `X-Agent-Id`. */
  agentId?: string | undefined;
  /** `X-Team-Id`. */
  teamId?: string | undefined;
  /** `X-User-Id`. */
  userId?: string | undefined;
  /** `X-Session-Id`. */
  sessionId?: string | undefined;
  /** Per request, in milliseconds. Default 30000. */
  timeoutMs?: number | undefined;
  /** Retries of 429s, and of 502/503/504 and lost connections for calls safe to repeat. */
  retry?: RetryPolicy | RetryOptions | undefined;
  /** More headers on every request of the SDK. */
  headers?: Record<string, string> | undefined;
  /** Your own `fetch` (proxies, TLS, tracing); the global `fetch` by default. */
  fetch?: Fetch | undefined;
  /** Read-your-writes with read replicas (on by default): the position the server answers this
   * client's writes with (`X-Memlane-Position`, PostgreSQL only) is sent back on later calls as
   * `X-Memlane-Read-After`, so no read is served by a replica that has not replayed them. */
  readYourWrites?: boolean | undefined;
}

/** Options of the calls that queue a task: the `Idempotency-Key` (a new one per call by default). */
export interface IdempotentOptions {
  idempotencyKey?: string | undefined;
}

/** How long `waitForTask` polls, and how often. */
export interface WaitOptions {
  /** Default 60000. */
  timeoutMs?: number | undefined;
  /** Default 100. */
  pollMs?: number | undefined;
}

/** A new Idempotency-Key: the same one goes out on every retry of a call. */
function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID().replace(/-/g, "");
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function idempotency(options: IdempotentOptions | undefined): Record<string, string> {
  return { "Idempotency-Key": options?.idempotencyKey || newIdempotencyKey() };
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** The layered surface (`/v1/layers`): identity, project and workspace memory. */
export class Layers {
  constructor(private readonly t: Transport) {}

  write(params: api.WriteIn): Promise<api.LayersWriteReply> {
    return this.t.op("POST /v1/layers/write", { body: params, safeToRepeat: false });
  }

  read(params: api.ReadIn): Promise<api.ReadReply> {
    return this.t.op("POST /v1/layers/read", { body: params, safeToRepeat: true });
  }

  search(params: api.SearchIn): Promise<api.SearchReply> {
    return this.t.op("POST /v1/layers/search", { body: params, safeToRepeat: true });
  }

  update(params: api.UpdateIn): Promise<api.Done> {
    return this.t.op("POST /v1/layers/update", { body: params, safeToRepeat: false });
  }

  delete(params: api.DeleteIn): Promise<api.Done> {
    return this.t.op("POST /v1/layers/delete", { body: params, safeToRepeat: true });
  }

  completeTask(taskId: string): Promise<api.TaskCompleted> {
    return this.t.op("POST /v1/layers/tasks/{task_id}/complete", {
      path: { task_id: taskId },
      safeToRepeat: true,
    });
  }
}

type ToolBody<K extends `POST /v1/tools/${string}` & api.OperationKey> = NonNullable<Body<K>>;

/**
 * The agent tools over HTTP (`/v1/tools/{name}`), one method per tool, named after it. A
 * tool's failure throws with the ToolError envelope (`errorCode`, `retryable`).
 */
export class Tools {
  /** sync_now waits for its job on the server (MEMLANE_SYNC_TIMEOUT_SEC, 60 s by default). */
  static readonly SYNC_TIMEOUT_MS = 120_000;

  constructor(private readonly t: Transport) {}

  listTools(): Promise<api.ToolList> {
    return this.t.op("GET /v1/tools", { safeToRepeat: true });
  }

  /** Any tool by name, its raw output (for tools this client does not know yet). Not retried
   * after a 5xx or a lost connection: the SDK cannot know whether the tool is safe to repeat. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const path = `/v1/tools/${encodeURIComponent(name)}`;
    const answer = await this.t.send({ method: "POST", path, body: args, safeToRepeat: false });
    return this.t.parse(answer, `POST ${path}`) as Record<string, unknown>;
  }

  async memoryAdd(
    content: string,
    options: Omit<ToolBody<"POST /v1/tools/memory_add">, "content"> = {},
  ): Promise<tr.MemoryAddResult> {
    const reply = await this.t.op("POST /v1/tools/memory_add", { body: { ...options, content }, safeToRepeat: false });
    return reply as tr.MemoryAddResult;
  }

  async memorySearch(
    query: string,
    options: Omit<ToolBody<"POST /v1/tools/memory_search">, "query"> = {},
  ): Promise<tr.MemorySearchResult> {
    const reply = await this.t.op("POST /v1/tools/memory_search", { body: { ...options, query }, safeToRepeat: true });
    return reply as tr.MemorySearchResult;
  }

  async memoryDelete(memoryId: string): Promise<tr.MemoryDeleteResult> {
    const reply = await this.t.op("POST /v1/tools/memory_delete", { body: { memoryId }, safeToRepeat: true });
    return reply as tr.MemoryDeleteResult;
  }

  async knowledgeQuery(
    query?: string,
    options: Omit<ToolBody<"POST /v1/tools/knowledge_query">, "query"> = {},
  ): Promise<tr.KnowledgeQueryResult> {
    const body = query === undefined ? options : { ...options, query };
    const reply = await this.t.op("POST /v1/tools/knowledge_query", { body, safeToRepeat: true });
    return reply as tr.KnowledgeQueryResult;
  }

  async knowledgeCheck(params: ToolBody<"POST /v1/tools/knowledge_check"> = {}): Promise<tr.KnowledgeCheckResult> {
    const reply = await this.t.op("POST /v1/tools/knowledge_check", { body: params, safeToRepeat: true });
    return reply as tr.KnowledgeCheckResult;
  }

  async knowledgeShow(
    id: string,
    options: Omit<ToolBody<"POST /v1/tools/knowledge_show">, "id"> = {},
  ): Promise<tr.KnowledgeShowResult> {
    const reply = await this.t.op("POST /v1/tools/knowledge_show", { body: { ...options, id }, safeToRepeat: true });
    return reply as tr.KnowledgeShowResult;
  }

  async syncNow(params: ToolBody<"POST /v1/tools/sync_now"> = {}): Promise<tr.SyncNowResult> {
    const reply = await this.t.op("POST /v1/tools/sync_now", {
      body: params,
      safeToRepeat: true,
      timeoutMs: Tools.SYNC_TIMEOUT_MS,
    });
    return reply as tr.SyncNowResult;
  }

  async syncStatus(): Promise<tr.SyncStatus> {
    const reply = await this.t.op("POST /v1/tools/sync_status", { body: {}, safeToRepeat: true });
    return reply as tr.SyncStatus;
  }
}

/** The knowledge repository's CRUD (`/v1/knowledge`): ADRs, policies, patterns, specs. */
export class Knowledge {
  constructor(private readonly t: Transport) {}

  listItems(query: Query<"GET /v1/knowledge/items"> = {}): Promise<api.ItemList> {
    return this.t.op("GET /v1/knowledge/items", { query, safeToRepeat: true });
  }

  createItem(item: api.KnowledgeItemIn): Promise<api.ItemReply> {
    return this.t.op("POST /v1/knowledge/items", { body: item, safeToRepeat: false });
  }

  getItem(itemId: string, query: Query<"GET /v1/knowledge/items/{item_id}"> = {}): Promise<api.ItemReply> {
    return this.t.op("GET /v1/knowledge/items/{item_id}", { path: { item_id: itemId }, query, safeToRepeat: true });
  }

  /** Change fields (`title`, `status`...); the item gets a new version. */
  updateItem(itemId: string, changes: api.KnowledgeItemPatch): Promise<api.ItemReply> {
    return this.t.op("PATCH /v1/knowledge/items/{item_id}", {
      path: { item_id: itemId },
      body: changes,
      safeToRepeat: false,
    });
  }

  deleteItem(itemId: string): Promise<api.ItemDeleted> {
    return this.t.op("DELETE /v1/knowledge/items/{item_id}", { path: { item_id: itemId }, safeToRepeat: true });
  }

  history(itemId: string): Promise<api.History> {
    return this.t.op("GET /v1/knowledge/items/{item_id}/history", { path: { item_id: itemId }, safeToRepeat: true });
  }

  /** Markdown documents with YAML front matter: `[{path, content}]`, all validated before any is stored. */
  importDocuments(documents: api.ImportIn["documents"]): Promise<api.ImportReply> {
    return this.t.op("POST /v1/knowledge/import", { body: { documents }, safeToRepeat: true });
  }
}

/**
 * A memlane server. `apiKey` is sent as `X-Api-Key`, `jwt` as `Authorization: Bearer`. With
 * auth off the server takes `tenantId`, `agentId`, `teamId`, `userId` and `sessionId` (sent
 * as `X-Tenant-Id`, `X-Agent-Id`... headers) at their word; with auth on they come from the
 * credentials. Nothing to close: the client holds no connection of its own.
 */
export class MemlaneClient {
  readonly layers: Layers;
  readonly tools: Tools;
  readonly knowledge: Knowledge;
  private readonly t: Transport;

  constructor(options: ClientOptions = {}) {
    const baseUrl = (options.baseUrl ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
    new URL(baseUrl); // a base URL that is not one fails here, not at the first call
    const headers: Record<string, string> = { "user-agent": "memlane-typescript-client" };
    if (options.apiKey) headers["X-Api-Key"] = options.apiKey;
    if (options.jwt) headers["Authorization"] = `Bearer ${options.jwt}`;
    const identity: Record<string, string | undefined> = {
      "X-Tenant-Id": options.tenantId,
      "X-Agent-Id": options.agentId,
      "X-Team-Id": options.teamId,
      "X-User-Id": options.userId,
      "X-Session-Id": options.sessionId,
    };
    for (const [name, value] of Object.entries(identity)) if (value) headers[name] = value;
    Object.assign(headers, options.headers);
    const retry = options.retry instanceof RetryPolicy ? options.retry : new RetryPolicy(options.retry);
    const fetchImpl: Fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.t = new Transport(
      baseUrl,
      fetchImpl,
      retry,
      headers,
      options.timeoutMs ?? 30_000,
      new WritePositions(options.readYourWrites ?? true),
    );
    this.layers = new Layers(this.t);
    this.tools = new Tools(this.t);
    this.knowledge = new Knowledge(this.t);
  }

  // --- system -----------------------------------------------------------------------------
  health(): Promise<api.Health> {
    return this.t.op("GET /health", { safeToRepeat: true });
  }

  info(): Promise<api.Index> {
    return this.t.op("GET /", { safeToRepeat: true });
  }

  // --- graph (/v1/memory) -----------------------------------------------------------------
  /** Write nodes and edges in one commit. Not retried after a lost answer: it may have been stored. */
  write(params: api.WriteRequest): Promise<api.GraphWriteReply> {
    return this.t.op("POST /v1/memory/write", { body: params, safeToRepeat: false });
  }

  /** Recall by vector. */
  recall(params: api.RecallRequest): Promise<api.RecallReply> {
    return this.t.op("POST /v1/memory/recall", { body: params, safeToRepeat: true });
  }

  /** Recall by text (embedded by the server). Nodes are embedded by a background job shortly
   * after `write`: a recall right after a write may not see them yet. */
  recallText(params: api.RecallTextRequest): Promise<api.RecallTextReply> {
    return this.t.op("POST /v1/memory/recall_text", { body: params, safeToRepeat: true });
  }

  evaluateRules(params: api.EvaluateRequest): Promise<api.EvaluateReply> {
    return this.t.op("POST /v1/memory/rules/evaluate", { body: params, safeToRepeat: true });
  }

  selectTools(params: api.ToolsSelectRequest): Promise<api.ToolsSelectReply> {
    return this.t.op("POST /v1/memory/tools/select", { body: params, safeToRepeat: true });
  }

  toolFeedback(params: api.ToolsFeedbackRequest): Promise<api.ToolsFeedbackReply> {
    return this.t.op("POST /v1/memory/tools/feedback", { body: params, safeToRepeat: false });
  }

  feedback(params: api.FeedbackRequest): Promise<api.RuleFeedbackReply> {
    return this.t.op("POST /v1/memory/feedback", { body: params, safeToRepeat: false });
  }

  setRuleState(params: api.RuleStateRequest): Promise<api.RuleStateReply> {
    return this.t.op("POST /v1/memory/rules/state", { body: params, safeToRepeat: true });
  }

  activate(params: api.ActivateRequest): Promise<api.ActivateReply> {
    return this.t.op("POST /v1/memory/nodes/activate", { body: params, safeToRepeat: false });
  }

  rehydrate(params: api.RehydrateRequest): Promise<api.RehydrateReply> {
    return this.t.op("POST /v1/memory/archive/rehydrate", { body: params, safeToRepeat: true });
  }

  // --- conversation (/api/v1) -------------------------------------------------------------
  /** Messages (`role`, `content`, optional `timestamp`) -> a durable ingestion task. An
   * `Idempotency-Key` (yours, else a new one) makes retries safe. */
  addMemories(params: api.AddMemoryRequest, options?: IdempotentOptions): Promise<api.Accepted> {
    return this.t.op("POST /api/v1/memories", { body: params, headers: idempotency(options), safeToRepeat: true });
  }

  queryMemories(params: Query<"GET /api/v1/memories/query">): Promise<api.QueryReply> {
    return this.t.op("GET /api/v1/memories/query", { query: params, safeToRepeat: true });
  }

  getMemory(memoryId: string, params: Query<"GET /api/v1/memories/{memory_id}">): Promise<api.Memory> {
    return this.t.op("GET /api/v1/memories/{memory_id}", {
      path: { memory_id: memoryId },
      query: params,
      safeToRepeat: true,
    });
  }

  deleteMemory(memoryId: string, params: Query<"DELETE /api/v1/memories/{memory_id}">): Promise<api.Deleted> {
    return this.t.op("DELETE /api/v1/memories/{memory_id}", {
      path: { memory_id: memoryId },
      query: params,
      safeToRepeat: true,
    });
  }

  memoryEvolution(
    memoryId: string,
    params: Query<"GET /api/v1/memories/{memory_id}/evolution">,
  ): Promise<api.EvolutionReply> {
    return this.t.op("GET /api/v1/memories/{memory_id}/evolution", {
      path: { memory_id: memoryId },
      query: params,
      safeToRepeat: true,
    });
  }

  addAgentMemory(params: api.AgentMemoryRequest, options?: IdempotentOptions): Promise<api.Accepted> {
    return this.t.op("POST /api/v1/agent/memories", {
      body: params,
      headers: idempotency(options),
      safeToRepeat: true,
    });
  }

  /** The summary now (no `callback_url`), or a task (`Accepted`, 202) delivering it to the
   * webhook; a call with a callback carries an `Idempotency-Key`. */
  summarize(params: api.SummaryRequest, options?: IdempotentOptions): Promise<api.Summary | api.Accepted> {
    const callback = params.callback_url !== undefined && params.callback_url !== null;
    return this.t.op("POST /api/v1/agent/summaries", {
      body: params,
      safeToRepeat: true,
      ...(callback ? { headers: idempotency(options) } : {}),
    });
  }

  getTask(taskId: string): Promise<api.Task> {
    return this.t.op("GET /api/v1/tasks/{task_id}", { path: { task_id: taskId }, safeToRepeat: true });
  }

  /** Polls a task until it is `completed` or `failed`; `MemlaneTimeoutError` after `timeoutMs` (60000). */
  async waitForTask(taskId: string, { timeoutMs = 60_000, pollMs = 100 }: WaitOptions = {}): Promise<api.Task> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const task = await this.getTask(taskId);
      if (task.status === "completed" || task.status === "failed") return task;
      if (Date.now() >= deadline) throw new MemlaneTimeoutError(taskId, task.status, timeoutMs);
      await sleep(pollMs);
    }
  }

  /** Appends to the memory batcher's buffer; full (or idle) buffers become ingestion tasks. */
  batchAddMessages(params: api.BatcherRequest): Promise<api.BatcherReply> {
    return this.t.op("POST /api/v1/memory-batcher/messages", { body: params, safeToRepeat: false });
  }

  batcherBuffer(params: Query<"GET /api/v1/memory-batcher/buffers">): Promise<api.BatcherReply> {
    return this.t.op("GET /api/v1/memory-batcher/buffers", { query: params, safeToRepeat: true });
  }

  poolStats(): Promise<api.PoolStats> {
    return this.t.op("GET /api/v1/system/pool-stats", { safeToRepeat: true });
  }
}
