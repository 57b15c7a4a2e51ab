"""The contract: what every tool of every family takes and answers, as data.

The bottom layer, pure and light: tools and their arguments (tools, engine, pitfalls,
search, compute), the presets and which tools each serves (presets, registry), the
failure codes (codes), the ceilings (limits), the dimension table (dimensions) and the
checks every tool's arguments share (checks). The engine, the MCP server, the CLI, the
docs' reference and the skills' tests derive from it; nothing here does any I/O."""
