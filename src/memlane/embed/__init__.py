"""Embedders: the local offline model (default), OpenAI-compatible HTTP, and hashing for tests."""
