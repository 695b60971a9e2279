"""Job kinds of the layered-memory and agent-tools surfaces (stored in the jobs table)."""

#: periodic: delete expired layered/tool memories and idle workspace items, then re-enqueue itself
LAYERS_SWEEP = "layers_sweep"
#: project knowledge items into memory nodes (sync_now)
KNOWLEDGE_SYNC = "knowledge_sync"
