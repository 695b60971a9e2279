// Read-your-writes with read replicas: the client sends back the latest position its own writes
// were answered with. A memlane server on SQLite answers no position (there are no replicas),
// so a loopback server plays the primary's part here; the Python tests run the same contract
// against a real PostgreSQL primary and standby (tests/api/test_read_replicas.py).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { MemlaneClient } from "memlane";

import { type Loopback, json, serve } from "./support/loopback.js";

const POSITIONS = ["lsn:0000000001A2B3C8", "lsn:00000000019F0000", "lsn:0000000002000010"];
let server: Loopback;

before(async () => {
  let writes = 0;
  server = await serve((req, res) => {
    if (req.url.startsWith("/v1/memory/write")) {
      const position = POSITIONS[writes++ % POSITIONS.length] as string;
      json(res, 200, { results: [] }, { "X-Memlane-Position": position });
    } else {
      json(res, 200, { seeds: [], expanded: [], edges: [] });
    }
  });
});

after(async () => {
  await server.close();
});

const readAfterOf = (from: number) =>
  server.received.slice(from).filter((r) => r.url.startsWith("/v1/memory/recall_text")).map((r) => r.headers["x-memlane-read-after"]);

const write = (c: MemlaneClient) => c.write({ nodes: [{ type: "event", title: "t", text_summary: "s" }] });
const read = (c: MemlaneClient) => c.recallText({ query_text: "q" });

test("a read before any write sends no position, and a read after a write sends that write's position", async () => {
  const c = new MemlaneClient({ baseUrl: server.url, tenantId: "acme" });
  const from = server.received.length;
  await read(c);
  await write(c);
  await read(c);
  assert.deepEqual(readAfterOf(from), [undefined, POSITIONS[0]]);
});

test("the highest position of the client's writes is kept when an older one is answered later", async () => {
  const c = new MemlaneClient({ baseUrl: server.url, tenantId: "acme" });
  const from = server.received.length;
  await write(c); // answered POSITIONS[1], lower than POSITIONS[0] the previous client got
  await write(c); // answered POSITIONS[2]
  await write(c); // answered POSITIONS[0]: older than POSITIONS[2]
  await read(c);
  assert.deepEqual(readAfterOf(from), [POSITIONS[2]]);
});

test("with readYourWrites off the client sends no position", async () => {
  const c = new MemlaneClient({ baseUrl: server.url, tenantId: "acme", readYourWrites: false });
  const from = server.received.length;
  await write(c);
  await read(c);
  assert.deepEqual(readAfterOf(from), [undefined]);
});
