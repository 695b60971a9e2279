// npm test's runner: starts two real memlane servers (auth off, and API-key auth), then runs
// the compiled tests with Node's test runner against them, and stops the servers.
//   node tools/run-tests.mjs                       every test in build-test/test/
//   node tools/run-tests.mjs build-test/test/x.js  some of them
// The tests find the servers in MEMLANE_TEST_URL, MEMLANE_TEST_KEYED_URL and
// MEMLANE_TEST_KEYS_JSON (test/support/servers.ts).

import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { startMemlane } from "./memlane-server.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const KEYS = {
  "k-acme": { tenant_id: "acme", agent_id: "agent-7", user_id: "user-7" },
  "k-acme-project": { tenant_id: "acme", agent_id: "agent-8" },
};

function testFiles() {
  const given = process.argv.slice(2);
  if (given.length) return given;
  const dir = join(ROOT, "build-test", "test");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".test.js"))
    .sort()
    .map((name) => join(dir, name));
}

async function main() {
  const started = Date.now();
  const servers = await Promise.allSettled([
    startMemlane(),
    startMemlane({ MEMORY_AUTH_MODE: "api_key", MEMORY_API_KEYS_JSON: JSON.stringify(KEYS) }),
  ]);
  const stopAll = () => Promise.all(servers.map((s) => (s.status === "fulfilled" ? s.value.stop() : undefined)));
  const failed = servers.find((s) => s.status === "rejected");
  if (failed && failed.status === "rejected") {
    await stopAll();
    throw failed.reason;
  }
  const [open, keyed] = servers.map((s) => (s.status === "fulfilled" ? s.value : undefined));
  console.log(`memlane servers up in ${((Date.now() - started) / 1000).toFixed(1)}s: ${open?.url} (auth off), ${keyed?.url} (API keys)`);

  const env = {
    ...process.env,
    MEMLANE_TEST_URL: open?.url ?? "",
    MEMLANE_TEST_KEYED_URL: keyed?.url ?? "",
    MEMLANE_TEST_KEYS_JSON: JSON.stringify(KEYS),
  };
  const args = ["--test", "--test-reporter=spec", "--test-concurrency=2", "--test-timeout=120000", ...testFiles()];
  const runner = spawn(process.execPath, args, { env, stdio: "inherit", cwd: ROOT });
  const stopRunner = () => runner.kill("SIGTERM");
  process.once("SIGINT", stopRunner);
  process.once("SIGTERM", stopRunner);
  const code = await new Promise((done) => runner.once("exit", (c, signal) => done(c ?? (signal ? 1 : 0))));
  await stopAll();
  process.exitCode = Number(code);
}

await main();
