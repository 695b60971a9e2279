"""Optional second-stage rerankers for ``recall_text`` (off by default; docs/retrieval.md)."""
