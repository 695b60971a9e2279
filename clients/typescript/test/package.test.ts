// The package as a user gets it: the example runs as written against a real server, and
// `npm pack` ships the built JavaScript and its types under the package's entry point.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { promisify } from "node:util";

import { MEMLANE_URL } from "./support/servers.js";

const run = promisify(execFile);
const ROOT = new URL("../../", import.meta.url);

test("the quickstart example keeps and recalls memory on every surface", async () => {
  const example = new URL("build-test/examples/quickstart.js", ROOT);
  const env: NodeJS.ProcessEnv = { ...process.env, MEMLANE_URL };
  delete env.MEMLANE_API_KEY;
  const { stdout } = await run(process.execPath, [example.pathname], { env, timeout: 120_000 });
  assert.match(stdout, /seed \d\.\d{3} Yosemite: Alice climbed El Capitan/);
  assert.match(stdout, /stored mem_\S+ for user default \(defaults\)/);
  assert.match(stdout, /found 0\.\d\d \[user\] User prefers functional programming/);
  assert.match(stdout, /note \d\.\d\d .*Lisbon/);
  assert.match(stdout, /not found: \{"detail":/);
});

test("npm pack ships the built JavaScript and types of the entry point, and no dependency", async () => {
  const manifest = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8"));
  assert.deepEqual(manifest.exports["."], { types: "./dist/index.d.ts", default: "./dist/index.js" });
  assert.equal(manifest.type, "module");
  assert.equal(manifest.dependencies, undefined, "no runtime dependency beyond fetch");

  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, timeout: 60_000 });
  const files = (JSON.parse(stdout)[0].files as { path: string }[]).map((f) => f.path);
  for (const shipped of ["package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/client.js", "dist/openapi.d.ts"]) {
    assert.ok(files.includes(shipped), `${shipped} is not in the package: ${files.join(", ")}`);
  }
  assert.deepEqual(
    files.filter((f) => /^(test|tools|build-test|node_modules)\//.test(f)),
    [],
    "tests and tools stay out of the package",
  );
});
