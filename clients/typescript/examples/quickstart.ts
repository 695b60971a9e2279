// memlane's TypeScript SDK: remember, recall, and let agents use the tools.
//
//   memlane serve &                                  # or any memlane server
//   npm run build && npx tsc -p tsconfig.test.json   # in clients/typescript
//   node build-test/examples/quickstart.js           # MEMLANE_URL=http://host:port to point elsewhere

import { MemlaneClient, NotFoundError, type RecallTextReply } from "memlane";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const client = new MemlaneClient({
  baseUrl: process.env.MEMLANE_URL ?? "http://127.0.0.1:8000",
  apiKey: process.env.MEMLANE_API_KEY,
});

// graph memory: write nodes and an edge in one commit, then recall by text
const written = await client.write({
  scope: "quickstart",
  input_text: "onboarding chat",
  memory_lane: "shared",
  nodes: [
    { client_id: "alice", type: "entity", title: "Alice", text_summary: "Alice is a rock climber" },
    { client_id: "trip", type: "event", title: "Yosemite", text_summary: "Alice climbed El Capitan" },
  ],
  edges: [{ type: "part_of", src: { client_id: "trip" }, dst: { client_id: "alice" } }],
});
console.log("commit", written.commit_id);
let recalled: RecallTextReply | undefined;
for (let i = 0; i < 100; i++) {
  // nodes are embedded by a background job, usually within a second
  recalled = await client.recallText({ query_text: "What did Alice climb?", scope: "quickstart" });
  if (recalled.seeds.length) break;
  await sleep(100);
}
for (const seed of recalled?.seeds ?? []) {
  console.log(`seed ${(seed.relevance ?? 0).toFixed(3)} ${seed.title}: ${seed.text_summary}`);
}

// agent tools: no identity needed with auth off (the configured defaults are used)
const added = await client.tools.memoryAdd("User prefers functional programming patterns over OOP", { tags: ["style"] });
console.log("stored", added.memoryId, "for user", added.identity?.user, `(${added.identity?.source})`);
const found = await client.tools.memorySearch("Does the user like functional programming patterns?");
for (const hit of found.results) console.log(`found ${hit.score.toFixed(2)} [${hit.layer}] ${hit.content}`);

// conversation memory: messages in, notes out (a durable task)
const task = await client.addMemories({
  app_id: "quickstart",
  user_id: "alice",
  messages: [
    { role: "user", content: "I moved to Lisbon last year" },
    { role: "assistant", content: "How do you like it there?" },
  ],
});
await client.waitForTask(task.task_id);
const notes = await client.queryMemories({ app_id: "quickstart", user_id: "alice", query: "Where does Alice live?" });
for (const note of notes.memories) console.log(`note ${note.similarity_score.toFixed(2)} ${note.document}`);

try {
  await client.getMemory("no-such-id", { app_id: "quickstart" });
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log("not found:", JSON.stringify(error.envelope));
}
