"""Memories that stop being true a moment after they are written: layered memories with
``metadata.expiry`` or ``metadata.invalid_at``, graph nodes with ``invalid_at``, tool memories
with ``metadata.expiresAt`` or ``invalidAt``. Each holds a word no other memory holds.
"""

from __future__ import annotations

from bench.memory_truth_cases import ExpiringMemory

#: a conversation app (scope) the graph event lives in, so the conversation query can see it
APP_SCOPE = "expiry-app"

EXPIRING: list[ExpiringMemory] = [
    ExpiringMemory(
        "exp-layered-identity-hotel",
        "layered",
        "expiry",
        title="Where the user is staying",
        content="The user is staying at the Quillfeather Hotel, room 414, until the conference ends.",
        query="Which hotel is the user staying at?",
        layer="identity",
    ),
    ExpiringMemory(
        "exp-layered-project-freeze",
        "layered",
        "expiry",
        title="Staging freeze",
        content="The staging database is frozen for the Juniper migration; no schema changes.",
        query="Can we change the staging database schema?",
        layer="project",
    ),
    ExpiringMemory(
        "exp-layered-workspace-invoice",
        "layered",
        "expiry",
        title="Invoice export",
        content="Step 2 of the billing task: waiting for the Heliotrope invoice export to finish.",
        query="What is the billing task waiting for?",
        layer="workspace",
        task_id="billing-heliotrope",
    ),
    ExpiringMemory(
        "exp-layered-identity-phone",
        "layered",
        "invalid_at",
        title="Temporary phone number",
        content="While abroad the user can be reached on the temporary number ending in 7731 (Saffronline).",
        query="What phone number can the user be reached on?",
        layer="identity",
    ),
    ExpiringMemory(
        "exp-graph-event-housesit",
        "graph",
        "invalid_at",
        title=None,
        content="Nadia is house-sitting for the Okonkwo family in Brambleton this week.",
        query="Where is Nadia staying this week?",
        scope=APP_SCOPE,
        node_type="event",
    ),
    ExpiringMemory(
        "exp-graph-concept-gatecode",
        "graph",
        "invalid_at",
        title="Office gate code",
        content="The office gate code is Marigold-4471 until the locks are changed.",
        query="What is the office gate code?",
        node_type="concept",
    ),
    ExpiringMemory(
        "exp-tool-expires-wifi",
        "tool",
        "expiry",
        content="The guest wifi password at the cabin is Tangerine-Otter-88.",
        query="What is the guest wifi password?",
    ),
    ExpiringMemory(
        "exp-tool-invalid-parking",
        "tool",
        "invalid_at",
        content="The user's visitor parking permit for the Larkspur garage is number 5520.",
        query="What is the user's parking permit number?",
    ),
]
