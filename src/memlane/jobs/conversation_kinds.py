"""Job kinds of the conversation surface, stable because they are stored in the jobs table."""

CONVERSATION_INGEST = "conversation.ingest"
CONVERSATION_AGENT_MEMORY = "conversation.agent_memory"
CONVERSATION_SUMMARY_CALLBACK = "conversation.summary_callback"
CONVERSATION_KINDS = frozenset({CONVERSATION_INGEST, CONVERSATION_AGENT_MEMORY, CONVERSATION_SUMMARY_CALLBACK})
