"""Every request example of the conversation spec (``../shared/spec/conversation-memory-api.md``),
character for character: the ``curl`` commands, and the one JSON request body it shows
without placeholders (the summaries body with ``callback_url``). ``test_examples_are_verbatim``
checks each against the spec when it is beside the repository; the tests parse the commands
(``curl.py``) and send exactly what they say, to whatever host the test server listens on.
"""

from __future__ import annotations

CURL: dict[str, str] = {
    "add_memory": r"""curl -X POST "http://localhost:8000/api/v1/memories" \
  -H "Content-Type: application/json" \
  -d '{
    "app_id": "my-app-id",
    "user_id": "user-123",
    "session_id": "session-456",
    "messages": [
      {
        "role": "user",
        "content": "Hello, how are you?",
        "timestamp": "2024-01-01T00:00:00Z"
      },
      {
        "role": "assistant",
        "content": "I am doing well, thank you!",
        "timestamp": "2024-01-01T00:00:05Z"
      }
    ]
  }'
""",
    "query_memories": r"""curl "http://localhost:8000/api/v1/memories/query?app_id=my-app-id&query=hello&user_id=user-123&n_results=5"
""",
    "get_memory": r"""curl "http://localhost:8000/api/v1/memories/memory-123?app_id=my-app-id"
""",
    "delete_memory": r"""curl -X DELETE "http://localhost:8000/api/v1/memories/memory-123?app_id=my-app-id"
""",
    "evolution": r"""curl "http://localhost:8000/api/v1/memories/memory-123/evolution?app_id=my-app-id"
""",
    "agent_memory_string": r"""curl -X POST "http://localhost:8000/api/v1/agent/memories" \
  -H "Content-Type: application/json" \
  -d '{
    "app_id": "my-app-id",
    "user_id": "user-123",
    "session_id": "session-456",
    "messages": "User completed onboarding and selected premium plan"
  }'
""",
    "agent_memory_array": r"""curl -X POST "http://localhost:8000/api/v1/agent/memories" \
  -H "Content-Type: application/json" \
  -d '{
    "app_id": "my-app-id",
    "user_id": "user-123",
    "messages": [
      {"role": "agent", "content": "User asked about pricing", "timestamp": "2024-01-01T00:00:00Z"},
      {"role": "user", "content": "What are your plans?", "timestamp": "2024-01-01T00:00:05Z"}
    ]
  }'
""",
    "summary_sync": r"""curl -X POST "http://localhost:8000/api/v1/agent/summaries" \
  -H "Content-Type: application/json" \
  -d '{
    "app_id": "my-app-id",
    "user_id": "user-123",
    "messages": "User conversation text here..."
  }'
""",
    "summary_async_header": r"""curl -X POST "http://localhost:8000/api/v1/agent/summaries" \
  -H "Content-Type: application/json" \
  -H "X-Callback-URL: https://your-webhook.com/callback" \
  -d '{
    "app_id": "my-app-id",
    "user_id": "user-123",
    "messages": "Long conversation text..."
  }'
""",
    "health": r"""curl "http://localhost:8000/health"
""",
    "index": r"""curl "http://localhost:8000/"
""",
    "pool_stats": r"""curl "http://localhost:8000/api/v1/system/pool-stats"
""",
}

#: the request body of the second "Summarize Conversation" section
SUMMARY_BODY = r"""{
  "app_id": "string",
  "user_id": "string",
  "session_id": "string or null",
  "messages": [
    {
      "role": "user",
      "content": "Need help with rate limits",
      "timestamp": "2025-01-01T12:00:00Z"
    }
  ],
  "callback_url": "https://example.com/webhook",
  "callback_headers": {
    "Authorization": "Bearer token"
  }
}
"""
