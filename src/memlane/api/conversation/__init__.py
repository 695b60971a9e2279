"""The conversation surface (docs/api-conversation.md): ``/api/v1/memories``, the memory
batcher, agent memories, summaries and tasks."""
