"""Every request example of the conversation spec (``../shared/spec/conversation-memory-api.md``),
character for character: the ``curl`` commands, and the one JSON request body it shows
without placeholders (the summaries body with ``callback_url``). ``test_examples_are_verbatim``
checks each against the spec when it is beside the repository; the tests parse the commands
(``curl.py``) and send exactly what they say, to whatever host the test server listens on.
"""

from __future__ import annotations

CURL: dict[str, str] = {
    "add_memory": 'curl -X POST "http://localhost:8000/api/v1/memories" \\\n  -H "Content-Type: application/json" \\\n  -d \'{\n    "app_id": "my-app-id",\n    "user_id": "user-123",\n    "session_id": "session-456",\n    "messages": [\n      {\n        "role": "user",\n        "content": "Hello, how are you?",\n        "timestamp": "2024-01-01T00:00:00Z"\n      },\n      {\n        "role": "assistant",\n        "content": "I am doing well, thank you!",\n        "timestamp": "2024-01-01T00:00:05Z"\n      }\n    ]\n  }\'\n',
    "query_memories": 'curl "http://localhost:8000/api/v1/memories/query?app_id=my-app-id&query=hello&user_id=user-123&n_results=5"\n',
    "get_memory": 'curl "http://localhost:8000/api/v1/memories/memory-123?app_id=my-app-id"\n',
    "delete_memory": 'curl -X DELETE "http://localhost:8000/api/v1/memories/memory-123?app_id=my-app-id"\n',
    "evolution": 'curl "http://localhost:8000/api/v1/memories/memory-123/evolution?app_id=my-app-id"\n',
    "agent_memory_string": 'curl -X POST "http://localhost:8000/api/v1/agent/memories" \\\n  -H "Content-Type: application/json" \\\n  -d \'{\n    "app_id": "my-app-id",\n    "user_id": "user-123",\n    "session_id": "session-456",\n    "messages": "User completed onboarding and selected premium plan"\n  }\'\n',
    "agent_memory_array": 'curl -X POST "http://localhost:8000/api/v1/agent/memories" \\\n  -H "Content-Type: application/json" \\\n  -d \'{\n    "app_id": "my-app-id",\n    "user_id": "user-123",\n    "messages": [\n      {"role": "agent", "content": "User asked about pricing", "timestamp": "2024-01-01T00:00:00Z"},\n      {"role": "user", "content": "What are your plans?", "timestamp": "2024-01-01T00:00:05Z"}\n    ]\n  }\'\n',
    "summary_sync": 'curl -X POST "http://localhost:8000/api/v1/agent/summaries" \\\n  -H "Content-Type: application/json" \\\n  -d \'{\n    "app_id": "my-app-id",\n    "user_id": "user-123",\n    "messages": "User conversation text here..."\n  }\'\n',
    "summary_async_header": 'curl -X POST "http://localhost:8000/api/v1/agent/summaries" \\\n  -H "Content-Type: application/json" \\\n  -H "X-Callback-URL: https://your-webhook.com/callback" \\\n  -d \'{\n    "app_id": "my-app-id",\n    "user_id": "user-123",\n    "messages": "Long conversation text..."\n  }\'\n',
    "health": 'curl "http://localhost:8000/health"\n',
    "index": 'curl "http://localhost:8000/"\n',
    "pool_stats": 'curl "http://localhost:8000/api/v1/system/pool-stats"\n',
}

#: the request body of the second "Summarize Conversation" section
SUMMARY_BODY = '{\n  "app_id": "string",\n  "user_id": "string",\n  "session_id": "string or null",\n  "messages": [\n    {\n      "role": "user",\n      "content": "Need help with rate limits",\n      "timestamp": "2025-01-01T12:00:00Z"\n    }\n  ],\n  "callback_url": "https://example.com/webhook",\n  "callback_headers": {\n    "Authorization": "Bearer token"\n  }\n}\n'
