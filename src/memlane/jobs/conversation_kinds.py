"""Job kinds of the conversation surface, stable because they are stored in the jobs table."""

CONVERSATION_INGEST = "conversation.ingest"
CONVERSATION_AGENT_MEMORY = "conversation.agent_memory"
CONVERSATION_SUMMARY_CALLBACK = "conversation.summary_callback"
#: flushes a memory batcher buffer that has been idle for MEMLANE_BATCHER_IDLE_TIMEOUT_SEC
CONVERSATION_BATCHER_IDLE = "conversation.batcher_idle_flush"
CONVERSATION_KINDS = frozenset({CONVERSATION_INGEST, CONVERSATION_AGENT_MEMORY, CONVERSATION_SUMMARY_CALLBACK})
