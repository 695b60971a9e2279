"""The agent tools (docs/api-tools.md): /v1/tools over HTTP and the same tools over MCP at /mcp."""
