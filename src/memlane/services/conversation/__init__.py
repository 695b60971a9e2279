"""The conversation surface's use cases: messages in, memory notes out, ranked recall back.

Ingestion is a durable job (``ingestion``) that plans notes with the offline extractor
(``extractor`` + ``conflicts``) or the LLM pipeline (``pipeline``), checkpoints the plan, then
applies it in one transaction with deterministic node ids, so a re-run never duplicates.
"""
