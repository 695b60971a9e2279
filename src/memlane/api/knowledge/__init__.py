"""The knowledge repository (docs/api-tools.md): /v1/knowledge/*."""
