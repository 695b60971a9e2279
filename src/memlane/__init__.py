"""memlane: a self-hosted long-term memory server for AI agents."""

__version__ = "0.1.0"
