"""Job kind names, stable because they are stored in the jobs table."""

EMBED_NODES = "embed_nodes"
#: periodic (self-rescheduling): delete recall audits and finished jobs past their retention
RETENTION_SWEEP = "retention_sweep"
