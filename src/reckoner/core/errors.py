"""A failure as data (the codes themselves live in reckoner.contract.codes)."""

from __future__ import annotations

from dataclasses import dataclass

from reckoner.contract.codes import ErrorCode


@dataclass(frozen=True, slots=True)
class Failure:
    """A refused call as data: the code and the one sentence for the reader."""

    code: ErrorCode
    message: str

    def receipt(self) -> dict[str, object]:
        """The failure receipt of docs/reference/tools.md."""
        return {"ok": False, "code": self.code.value, "error": self.message}


class EngineError(Exception):
    """Raised inside the core to abandon a computation; always caught at the core's edge."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.failure = Failure(code, message)


def fail(code: ErrorCode, message: str) -> EngineError:
    """Build the exception that carries one failure (callers write ``raise fail(...)``)."""
    return EngineError(code, message)
