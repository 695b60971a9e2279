"""Export and import: a tenant's or a scope's memory as JSONL, loaded into any backend."""
