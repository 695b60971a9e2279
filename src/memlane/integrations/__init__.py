"""Adapters that plug memlane into agent frameworks (docs/integrations.md).

Each module imports its framework, which is an extra (``memlane[langgraph]``,
``memlane[openai-agents]``, ``memlane[langchain]``): importing ``memlane`` or
``memlane.client`` never imports a framework, so the base install stays small.
"""
