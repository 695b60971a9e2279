"""Job kind names, stable because they are stored in the jobs table."""

EMBED_NODES = "embed_nodes"
