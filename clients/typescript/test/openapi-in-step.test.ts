// The one check that keeps the SDK in step with the server: the live /openapi.json against the
// SDK's operation table, its public methods and its generated request and reply types.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { COMPOSITE_METHODS, Knowledge, Layers, MemlaneClient, OPERATIONS, Tools } from "memlane";

import { generate, operationKeys } from "../tools/openapi-to-ts.mjs";
import { MEMLANE_URL } from "./support/servers.js";

/** Operations of the document the SDK does not call, and why (the Python SDK leaves them out too). */
const NOT_IN_SDK: Record<string, string> = {
  "GET /metrics": "Prometheus scrapes it",
  "GET /v1/admin/export": "operators: `memlane export` or the admin token (docs/operations.md)",
  "POST /v1/admin/import": "operators: `memlane import` or the admin token (docs/operations.md)",
  "POST /v1/erasure": "erasure is an operator's decision with a receipt (docs/security.md), not an agent's call",
};

const GENERATED = new URL("../../src/openapi.ts", import.meta.url);

const doc = (await (await fetch(`${MEMLANE_URL}/openapi.json`)).json()) as Record<string, unknown>;

function publicMethods(prototype: object, prefix = ""): string[] {
  return Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== "constructor" && typeof Object.getOwnPropertyDescriptor(prototype, name)?.value === "function")
    .map((name) => prefix + name);
}

test("every operation the SDK calls is in the server's document, and the rest are left out on purpose", () => {
  const documented = operationKeys(doc);
  const called = Object.values(OPERATIONS) as string[];
  assert.deepEqual(
    called.filter((op) => !documented.includes(op)),
    [],
    "the SDK calls operations the server does not document",
  );
  assert.deepEqual(
    documented.filter((op) => !called.includes(op)).sort(),
    Object.keys(NOT_IN_SDK).sort(),
    "the server documents operations the SDK neither calls nor lists in NOT_IN_SDK",
  );
  assert.equal(new Set(called).size, called.length, "two methods call the same operation");
});

test("every public method is in the operation table, and every entry is a method", () => {
  const methods = [
    ...publicMethods(MemlaneClient.prototype),
    ...publicMethods(Layers.prototype, "layers."),
    ...publicMethods(Tools.prototype, "tools."),
    ...publicMethods(Knowledge.prototype, "knowledge."),
  ].sort();
  assert.deepEqual(methods, [...Object.keys(OPERATIONS), ...Object.keys(COMPOSITE_METHODS)].sort());
});

test("the SDK's request and reply types are the ones the live document generates", () => {
  const committed = readFileSync(GENERATED, "utf8");
  const live = generate(doc);
  if (committed === live) return;
  // the changed stretch: everything between the common beginning and the common end
  const [was, is] = [committed.split("\n"), live.split("\n")];
  let first = 0;
  while (first < was.length && first < is.length && was[first] === is[first]) first++;
  let [lastWas, lastIs] = [was.length, is.length];
  while (lastWas > first && lastIs > first && was[lastWas - 1] === is[lastIs - 1]) [lastWas, lastIs] = [lastWas - 1, lastIs - 1];
  const within = was.slice(0, first + 1).reverse().find((line) => /^(export|  "[A-Z]+ )/.test(line)) ?? "";
  const gone = was.slice(first, Math.min(lastWas, first + 30)).map((line) => `- ${line}`);
  const added = is.slice(first, Math.min(lastIs, first + 30)).map((line) => `+ ${line}`);
  assert.fail(
    "src/openapi.ts is not what the server's /openapi.json generates: run `npm run generate` in " +
      "clients/typescript, then adapt the SDK to what changed.\n" +
      `first difference at line ${first + 1}, in ${within.trim()}\n${[...gone, ...added].join("\n")}`,
  );
});
