"""The API keys of the integrations' server: one tenant the frameworks work in, and another
whose key must see nothing of it."""

from __future__ import annotations

API_KEY = "k-integrations"
OTHER_TENANT_KEY = "k-other-tenant"
KEYS = {
    API_KEY: {"tenant_id": "frameworks", "agent_id": "agent-1", "user_id": "user-1"},
    OTHER_TENANT_KEY: {"tenant_id": "elsewhere", "agent_id": "agent-1", "user_id": "user-1"},
}
