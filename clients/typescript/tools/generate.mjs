// npm run generate [-- URL | FILE]: writes src/openapi.ts from memlane's OpenAPI document.
// Without an argument it starts a memlane server of the repository (tools/memlane-server.mjs)
// and reads its /openapi.json; with one it reads that server's document or that JSON file.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { startMemlane } from "./memlane-server.mjs";
import { generate } from "./openapi-to-ts.mjs";

const TARGET = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "openapi.ts");

/** @param {string} url */
async function fetchDocument(url) {
  const answer = await fetch(`${url.replace(/\/+$/, "")}/openapi.json`);
  if (!answer.ok) throw new Error(`${url}/openapi.json answered ${answer.status}`);
  return answer.json();
}

async function main() {
  const source = process.argv[2];
  let doc;
  if (source && /^https?:\/\//.test(source)) {
    doc = await fetchDocument(source);
  } else if (source) {
    doc = JSON.parse(readFileSync(source, "utf8"));
  } else {
    const server = await startMemlane();
    try {
      doc = await fetchDocument(server.url);
    } finally {
      await server.stop();
    }
  }
  writeFileSync(TARGET, generate(doc));
  console.log(`wrote ${TARGET}`);
}

await main();
