"""How an article cites a computation: a short receipt id, the path kept for a footnote.

The id is the first 12 hex digits of the SHA-256 of the receipt's path inside the project.
The record row holds the path and no hash of the receipt file, and an article is written
from the record alone (no I/O), so the id names the receipt rather than pinning its bytes;
the path beside it in the footnote is what a reader opens. One run attempt has one receipt
path, so two runs never share an id. No I/O here.
"""

from __future__ import annotations

import hashlib

RECEIPT_ID_HEX = 12


def receipt_id(receipt: str) -> str:
    """The short id an article cites a computation receipt by: ``3f0a9c21b7d4``."""
    return hashlib.sha256(receipt.encode("utf-8", "surrogatepass")).hexdigest()[:RECEIPT_ID_HEX]
