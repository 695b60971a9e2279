"""memlane's Python SDK, async: an agent loop that recalls before it acts and remembers after.

MEMLANE_KNOWLEDGE_DIR=examples/adr memlane serve &   # the ADRs the knowledge check reads
python examples/sdk/async_agent.py   # MEMLANE_URL=http://host:port to point elsewhere

The dependency check fails (``passed: False``): examples/adr/adr-017-mysql-default.md forbids
the mysql2 driver. A server started without MEMLANE_KNOWLEDGE_DIR has no knowledge loaded, and
then nothing forbids it and the check passes.
"""

from __future__ import annotations

import asyncio
import os

from memlane.client import AsyncMemlaneClient


async def main() -> None:
    url = os.environ.get("MEMLANE_URL", "http://127.0.0.1:8000")
    async with AsyncMemlaneClient(url, api_key=os.environ.get("MEMLANE_API_KEY")) as client:
        await client.write(
            scope="agent-demo",
            input_text="deploy notes",
            memory_lane="shared",
            nodes=[
                {
                    "client_id": "deploy",
                    "type": "procedure",
                    "title": "Deploys",
                    "text_summary": "Deploys happen on Tuesday afternoons after the standup",
                }
            ],
        )
        # the layered surface and the knowledge check, side by side
        layer, check = await asyncio.gather(
            client.layers.write(
                layer="project", title="Stack", content="The API is written in Go", user_instruction=True
            ),
            client.tools.knowledge_check(dependencies=[{"name": "mysql2", "version": "3.0.0"}]),
        )
        print("layered memory", layer.id, "| dependency check passed:", check.passed)
        for _ in range(100):
            recalled = await client.recall_text(query_text="When can I deploy?", scope="agent-demo")
            if recalled.seeds:
                break
            await asyncio.sleep(0.1)
        print("recalled:", [s.text_summary for s in recalled.seeds])
        remembered = await client.tools.memory_add("Deployed release 1.4 on Tuesday", layer="project")
        print("remembered", remembered.memory_id)


if __name__ == "__main__":
    asyncio.run(main())
