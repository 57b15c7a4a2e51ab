"""The MCP server: ``app`` builds it over the engines (tools, skills, persona), ``run``
holds the engines and stops them, ``stdio`` and ``http`` are its two transports, ``logs``
sends what ``logging`` carries to stderr."""
