// The real memlane servers tools/run-tests.mjs started for this run (npm test).

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run the tests with \`npm test\` (tools/run-tests.mjs starts the servers)`);
  }
  return value;
}

/** A memlane server with auth off. */
export const MEMLANE_URL = required("MEMLANE_TEST_URL");

/** A memlane server with MEMORY_AUTH_MODE=api_key. */
export const KEYED_URL = required("MEMLANE_TEST_KEYED_URL");

/** Its API keys and the identity each carries. */
export const KEYS: Record<string, { tenant_id: string; agent_id: string; user_id?: string }> = JSON.parse(
  required("MEMLANE_TEST_KEYS_JSON"),
);

/** A fresh name, so tests sharing a server do not see each other's memories. */
export function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
