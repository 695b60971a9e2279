"""Agent tools (docs/api-tools.md): memory, knowledge and sync tools for any agent framework."""
