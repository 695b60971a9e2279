"""PostgreSQL + pgvector backend: ``MEMLANE_DATABASE_URL=postgresql://...``."""
