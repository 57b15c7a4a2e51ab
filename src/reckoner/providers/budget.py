"""How much an article call may send and ask for, in tokens, and how bytes are counted.

Tokens are estimated from UTF-8 bytes, never measured: no tokenizer ships with this program,
and each provider's differs. The estimate must not undercount, so it takes the densest text
the facts hold. English prose runs near 4 bytes a token, but the facts are JSON full of
digits (tokenizers cut numbers into pieces of one to three digits), punctuation and, for a
Chinese record, three-byte characters that are often a token each; all of these stay above 2
bytes a token. Dividing by 2 therefore overestimates every record's facts.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 2
"""The conservative bytes-per-token ratio the estimate divides by (module docstring)."""

ARTICLE_OUTPUT_TOKENS = 16_384
"""Tokens a model may spend on one article reply (a reasoning model's thinking included);
a reply that reaches it is cut off and is not an article."""

FACTS_TOKEN_BUDGET = 64_000
"""Estimated tokens of facts one article call may send: with the rules and the reply it
stays inside a 128k-token context, the smallest of the providers' current defaults, and
leaves room on the larger ones for the conversation a retry adds."""


def estimated_tokens(text: str) -> int:
    """A count of tokens ``text`` will not exceed in practice (module docstring)."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)
