"""LLM access: an OpenAI-compatible chat client with JSON output, bounded in cost and rate."""
