"""memlane as an MCP server: the agent tools over stdio (``memlane mcp``) and streamable HTTP
(``/mcp`` on the API server), built on the official ``mcp`` SDK."""
