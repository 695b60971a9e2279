"""memlane's Python SDK, sync: remember, recall, and let agents use the tools.

memlane serve &                      # or any memlane server
python examples/sdk/quickstart.py    # MEMLANE_URL=http://host:port to point elsewhere
"""

from __future__ import annotations

import os
import time

from memlane.client import MemlaneClient, NotFoundError


def main() -> None:
    url = os.environ.get("MEMLANE_URL", "http://127.0.0.1:8000")
    with MemlaneClient(url, api_key=os.environ.get("MEMLANE_API_KEY")) as client:
        # graph memory: write nodes and an edge in one commit, then recall by text
        written = client.write(
            scope="quickstart",
            input_text="onboarding chat",
            memory_lane="shared",
            nodes=[
                {"client_id": "alice", "type": "entity", "title": "Alice", "text_summary": "Alice is a rock climber"},
                {"client_id": "trip", "type": "event", "title": "Yosemite", "text_summary": "Alice climbed El Capitan"},
            ],
            edges=[{"type": "part_of", "src": {"client_id": "trip"}, "dst": {"client_id": "alice"}}],
        )
        print("commit", written.commit_id)
        for _ in range(100):  # nodes are embedded by a background job, usually within a second
            # include_meta: each seed's calibrated relevance too (the contract's seed has none)
            recalled = client.recall_text(query_text="What did Alice climb?", scope="quickstart", include_meta=True)
            if recalled.seeds:
                break
            time.sleep(0.1)
        for seed in recalled.seeds:
            print(f"seed {seed.relevance:.3f} {seed.title}: {seed.text_summary}")

        # agent tools: no identity needed with auth off (the configured defaults are used)
        added = client.tools.memory_add("User prefers functional programming patterns over OOP", tags=["style"])
        assert added.identity is not None
        print("stored", added.memory_id, "for user", added.identity.user, f"({added.identity.source})")
        found = client.tools.memory_search("What are the user's coding preferences?")
        for hit in found.results:
            print(f"found {hit.score:.2f} [{hit.layer}] {hit.content}")

        # conversation memory: messages in, notes out (a durable task)
        task = client.add_memories(
            app_id="quickstart",
            user_id="alice",
            messages=[
                {"role": "user", "content": "I moved to Lisbon last year"},
                {"role": "assistant", "content": "How do you like it there?"},
            ],
        )
        client.wait_for_task(task.task_id)
        for note in client.query_memories(
            app_id="quickstart", user_id="alice", query="Where does the user live?"
        ).memories:
            print(f"note {note.similarity_score:.2f} {note.document}")

        try:
            client.get_memory("no-such-id", app_id="quickstart")
        except NotFoundError as err:
            print("not found:", err.envelope)


if __name__ == "__main__":
    main()
