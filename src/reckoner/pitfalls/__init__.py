"""The pitfalls memory (issue 13): lessons from tool failures, recorded by the agent and
offered back when the same tool fails again.

``model`` (pure: fields, limits, normalising), ``search`` (pure: tokens, matching, scores),
``detector`` (pure: when a reminder fires), ``lean_json`` (JSON text without the ``json``
package, for a fast start), ``library`` (the one owner of a library's files and its search
cache), ``tiers`` (project and global libraries), ``render`` (cards, index, results),
``tools`` (the tools), ``mcp`` (the tools and reminders over MCP), ``hook`` (the
Claude Code hook command) and ``cli``.
"""
