"""The outside lookup (docs/guide/lookup.md): the `search` tool of the presets that serve it.

One module per outside thing: `anthropic_provider` and `openai_provider` (the search
providers through their official SDKs), `pages` (fetching a page's text), `service` (the
state file's override and the engine's record, through their own modules). `policy` and
`extraction` are pure; `pipeline` runs one lookup from question to row.
"""
