// The SDK keeps its credentials to its baseUrl: a redirect is refused, never followed. One
// server stands where the SDK points and redirects to a second one (another origin: another
// port), which records every request that reaches it.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { MemlaneClient, MemlaneRedirectError } from "memlane";

import { type Loopback, json, serve } from "./support/loopback.js";

const API_KEY = "sdk-key-that-must-stay-home";
const JWT = "header.payload.signature-that-must-stay-home";

let home: Loopback;
let elsewhere: Loopback;

before(async () => {
  elsewhere = await serve((_req, res) => json(res, 200, { status: "healthy", sdk_initialized: true, service: "memlane" }));
  home = await serve((req, res) => {
    res.writeHead(307, { location: `${elsewhere.url}${req.url}`, "content-length": "0" });
    res.end();
  });
});

after(async () => {
  await home.close();
  await elsewhere.close();
});

const carriesCredentials = (server: Loopback) =>
  server.received.some((r) => r.headers["x-api-key"] !== undefined || r.headers.authorization !== undefined);

test("a redirect to another origin is refused with MemlaneRedirectError, and nothing reaches that origin", async () => {
  const c = new MemlaneClient({ baseUrl: home.url, apiKey: API_KEY, jwt: JWT, tenantId: "acme" });
  await assert.rejects(c.health(), (error: unknown) => {
    assert.ok(error instanceof MemlaneRedirectError);
    assert.equal(error.statusCode, 307);
    assert.equal(error.location, `${elsewhere.url}/health`);
    return true;
  });
  await assert.rejects(c.tools.memoryAdd("a memory for the other origin"), MemlaneRedirectError);
  await assert.rejects(c.recallText({ query_text: "where does this go?" }), MemlaneRedirectError);
  assert.ok(carriesCredentials(home), "the SDK's own baseUrl gets the credentials");
  assert.equal(home.received.length, 3, "a redirect is not retried");
  assert.deepEqual(elsewhere.received, [], "nothing reached the other origin");
});

test("a fetch of the caller's own is asked not to follow redirects either", async () => {
  const seen: RequestInit[] = [];
  const tracing: typeof fetch = (input, init) => {
    seen.push(init ?? {});
    return fetch(input, init);
  };
  const c = new MemlaneClient({ baseUrl: home.url, apiKey: API_KEY, fetch: tracing });
  await assert.rejects(c.health(), MemlaneRedirectError);
  assert.equal(seen[0]?.redirect, "manual");
  assert.ok(!carriesCredentials(elsewhere));
});
