"""Real MCP hosts (the official TypeScript SDK client, the MCP Inspector) driving ``gabs``."""
