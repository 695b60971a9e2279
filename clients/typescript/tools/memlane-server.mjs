// A real memlane server for the tests and the type generator: `memlane serve` from the
// repository's .venv (scripts/setup.sh makes it) on a free loopback port with a fresh data
// directory, the hashing embedder (fast, no model to load; no conversation query cut) and the
// settings the caller adds.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const START_TIMEOUT_MS = 120_000;

/** The `memlane` command: MEMLANE_BIN, else the repository's .venv. */
export function memlaneBin() {
  const bin = process.env.MEMLANE_BIN || join(REPO, ".venv", "bin", "memlane");
  if (!existsSync(bin)) {
    throw new Error(`${bin} not found: run ./scripts/setup.sh at the repository root (or set MEMLANE_BIN)`);
  }
  return bin;
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

/** @param {number} ms */
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * Starts `memlane serve` and resolves once /health answers.
 * @param {Record<string, string>} [settings] extra environment (MEMORY_AUTH_MODE...)
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startMemlane(settings = {}) {
  const bin = memlaneBin();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "memlane-ts-"));
  // the caller's own memlane settings (auth, tenant defaults...) must not leak into the test server
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(MEMLANE_|MEMORY_|TENANT_|ADMIN_TOKEN$)/.test(name)),
  );
  const env = {
    ...inherited,
    MEMLANE_HOST: "127.0.0.1",
    MEMLANE_PORT: String(port),
    MEMLANE_DATA_DIR: dataDir,
    MEMLANE_EMBEDDER: "hashing",
    // the conversation query's default cut is on the local model's scale; the hashing
    // embedder's similarities mean nothing on it (tests/conftest.py does the same)
    MEMLANE_CONVERSATION_SIMILARITY_THRESHOLD: "0",
    MEMLANE_WORKER_POLL_INTERVAL_SEC: "0.05",
    MEMLANE_LOG_LEVEL: "warning",
    ...settings,
  };
  const child = spawn(bin, ["serve"], { env, stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  /** @type {number | null} */
  let exitCode = null;
  const exited = new Promise((done) =>
    child.once("exit", (code, signal) => {
      exitCode = code ?? (signal ? 128 : 1);
      done(undefined);
    }),
  );
  const killGroup = (/** @type {NodeJS.Signals} */ signal) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup("SIGKILL");
  process.once("exit", onExit);

  const stop = async () => {
    process.removeListener("exit", onExit);
    if (exitCode === null) {
      killGroup("SIGTERM");
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      const gaveUp = new Promise((done) => {
        timer = setTimeout(() => done(false), 15_000);
      });
      const stopped = await Promise.race([exited.then(() => true), gaveUp]);
      clearTimeout(timer);
      if (!stopped) killGroup("SIGKILL");
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exitCode !== null) {
      await stop();
      throw new Error(`memlane serve exited with ${exitCode} before answering:\n${stderr}`);
    }
    try {
      const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (health.ok) return { url, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`memlane serve did not answer /health within ${START_TIMEOUT_MS / 1000}s:\n${stderr}`);
    }
    await sleep(100);
  }
}
