"""Agent tools (agent-tools.md): memory, knowledge and sync tools for any agent framework."""
