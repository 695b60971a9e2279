/**
 * What each agent tool answers (`POST /v1/tools/{name}`). The OpenAPI document gives every
 * tool's input schema but only an open `ToolResult` object for its output (the fields depend
 * on the tool), so these are written over docs/api-tools.md and the Python SDK's models; the
 * tests read them from a real server. Field names are the wire's (camelCase, as the tools
 * spec names them); fields a newer server adds are kept (`[key: string]: unknown`).
 */

/** Whom a tool call acted for, and where that came from (`credentials`, `headers`, `defaults`, `options`). */
export interface ToolIdentity {
  tenant: string;
  agent?: string | null;
  user?: string | null;
  session?: string | null;
  team?: string | null;
  project?: string | null;
  org?: string | null;
  role?: string;
  source: string;
  defaulted?: string[];
  [key: string]: unknown;
}

/** Every tool result says whom it acted for. */
export interface ToolOutput {
  identity?: ToolIdentity;
  [key: string]: unknown;
}

export interface MemoryAddResult extends ToolOutput {
  success: boolean;
  memoryId: string;
  message: string;
}

export interface MemoryHit {
  content: string;
  layer: string;
  /** the calibrated relevance in 0..1 that `threshold` applies to */
  score: number;
  memoryId: string;
  tags: string[];
  /** the raw cosine */
  similarity?: number;
  validAt?: string;
  invalidAt?: string;
  expiresAt?: string;
  [key: string]: unknown;
}

export interface MemorySearchResult extends ToolOutput {
  success: boolean;
  results: MemoryHit[];
  totalCount: number;
  searchedLayers: string[];
  skippedLayers?: Record<string, unknown>[];
}

export interface MemoryDeleteResult extends ToolOutput {
  success: boolean;
  message: string;
}

export interface KnowledgeSummary {
  id: string;
  type: string;
  layer: string;
  title: string;
  summary: string;
  status: string;
  tags: string[];
  hasConstraints: boolean;
  score?: number;
  [key: string]: unknown;
}

export interface KnowledgeQueryResult extends ToolOutput {
  success: boolean;
  items: KnowledgeSummary[];
  totalCount: number;
}

export interface Violation {
  knowledgeItemId: string;
  knowledgeItemTitle: string;
  constraint: Record<string, unknown>;
  severity: string;
  message: string;
  location?: Record<string, unknown> | null;
  [key: string]: unknown;
}

export interface KnowledgeCheckResult extends ToolOutput {
  passed: boolean;
  violations: Violation[];
  summary: Record<string, number>;
  checked?: Record<string, unknown>;
}

export interface ToolKnowledgeItem {
  id: string;
  type: string;
  layer: string;
  title: string;
  summary?: string;
  content?: string;
  status: string;
  severity?: string | null;
  tags?: string[];
  constraints?: Record<string, unknown>[];
  metadata?: Record<string, unknown>;
  createdAt?: string | null;
  updatedAt?: string | null;
  supersedes?: string | null;
  supersededBy?: string[];
  [key: string]: unknown;
}

export interface ItemVersionEntry {
  version: string;
  timestamp: string;
  author: string;
  message: string;
  [key: string]: unknown;
}

export interface KnowledgeShowResult extends ToolOutput {
  success: boolean;
  item?: ToolKnowledgeItem | null;
  history?: ItemVersionEntry[] | null;
}

export interface SyncCounts {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  failures: number;
  [key: string]: unknown;
}

export interface SyncNowResult extends ToolOutput {
  success: boolean;
  result: SyncCounts;
  durationMs: number;
  message: string;
  jobId?: string;
}

export interface SyncStatus extends ToolOutput {
  healthy: boolean;
  lastSyncAt?: string | null;
  timeSinceSync: string;
  failedItems: number;
  stats: Record<string, unknown>;
}
