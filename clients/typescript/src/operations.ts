/**
 * Which operation of the OpenAPI document each public method calls. The client can only call
 * operations named here (`Transport.op` is typed over them), `satisfies` checks each against
 * the generated document types, and test/openapi-in-step.test.ts checks the table against the
 * live server's /openapi.json and the client's methods.
 */

import type { OperationKey } from "./openapi.js";

export const OPERATIONS = {
  health: "GET /health",
  info: "GET /",
  // graph
  write: "POST /v1/memory/write",
  recall: "POST /v1/memory/recall",
  recallText: "POST /v1/memory/recall_text",
  evaluateRules: "POST /v1/memory/rules/evaluate",
  selectTools: "POST /v1/memory/tools/select",
  toolFeedback: "POST /v1/memory/tools/feedback",
  feedback: "POST /v1/memory/feedback",
  setRuleState: "POST /v1/memory/rules/state",
  activate: "POST /v1/memory/nodes/activate",
  rehydrate: "POST /v1/memory/archive/rehydrate",
  // conversation
  addMemories: "POST /api/v1/memories",
  queryMemories: "GET /api/v1/memories/query",
  getMemory: "GET /api/v1/memories/{memory_id}",
  deleteMemory: "DELETE /api/v1/memories/{memory_id}",
  memoryEvolution: "GET /api/v1/memories/{memory_id}/evolution",
  addAgentMemory: "POST /api/v1/agent/memories",
  summarize: "POST /api/v1/agent/summaries",
  getTask: "GET /api/v1/tasks/{task_id}",
  batchAddMessages: "POST /api/v1/memory-batcher/messages",
  batcherBuffer: "GET /api/v1/memory-batcher/buffers",
  poolStats: "GET /api/v1/system/pool-stats",
  // layered
  "layers.write": "POST /v1/layers/write",
  "layers.read": "POST /v1/layers/read",
  "layers.search": "POST /v1/layers/search",
  "layers.update": "POST /v1/layers/update",
  "layers.delete": "POST /v1/layers/delete",
  "layers.completeTask": "POST /v1/layers/tasks/{task_id}/complete",
  // agent tools
  "tools.listTools": "GET /v1/tools",
  "tools.memoryAdd": "POST /v1/tools/memory_add",
  "tools.memorySearch": "POST /v1/tools/memory_search",
  "tools.memoryDelete": "POST /v1/tools/memory_delete",
  "tools.knowledgeQuery": "POST /v1/tools/knowledge_query",
  "tools.knowledgeCheck": "POST /v1/tools/knowledge_check",
  "tools.knowledgeShow": "POST /v1/tools/knowledge_show",
  "tools.syncNow": "POST /v1/tools/sync_now",
  "tools.syncStatus": "POST /v1/tools/sync_status",
  // knowledge repository
  "knowledge.listItems": "GET /v1/knowledge/items",
  "knowledge.createItem": "POST /v1/knowledge/items",
  "knowledge.getItem": "GET /v1/knowledge/items/{item_id}",
  "knowledge.updateItem": "PATCH /v1/knowledge/items/{item_id}",
  "knowledge.deleteItem": "DELETE /v1/knowledge/items/{item_id}",
  "knowledge.history": "GET /v1/knowledge/items/{item_id}/history",
  "knowledge.importDocuments": "POST /v1/knowledge/import",
} as const satisfies Record<string, OperationKey>;

/** The operations the SDK calls. */
export type SdkOperation = (typeof OPERATIONS)[keyof typeof OPERATIONS];

/** Public methods that are not one operation of their own. */
export const COMPOSITE_METHODS = {
  waitForTask: "polls GET /api/v1/tasks/{task_id} (getTask)",
  "tools.call": "POST /v1/tools/{name}: any tool by name, for tools this client does not know yet",
} as const;
