"""The server's fixed defaults, importable without loading the MCP SDK (the CLI's help)."""

DEFAULT_HTTP_PORT = 8766
"""One above the panel's 8765, so both can run side by side with their defaults."""

MCP_PATH = "/mcp"
"""Where streamable HTTP is served."""
