"""The compute tool's machine-readable vocabulary besides its codes: next kinds, next
reasons and warning codes (the codes, ``MathCode``, are in :mod:`reckoner.contract.codes`).

Defined once here; the input schema, the docs and the tests are checked against these.
A caller branches on ``code`` and ``next.kind`` (and ``next.reason``), never on the text.
"""

from __future__ import annotations

from enum import StrEnum


class NextKind(StrEnum):
    """What a caller can do next (``next.kind``)."""

    USER_INSTALL = "user-install"
    AGENT_INSTALL = "agent-install"
    VENDOR = "vendor"
    ENABLE = "enable"
    ENGINE_OVERRIDE = "engine-override"
    REASON = "reason"
    NOTE = "note"


class NextReason(StrEnum):
    """Why a call was refused (``next.reason``, only when ``next.kind`` is ``reason``)."""

    POLICY = "policy"
    ENGINE_NOT_ALLOWED = "engine-not-allowed"
    MISSING_CLI_COMMAND = "missing-cli-command"
    EXPR_NOT_SUPPORTED = "expr-not-supported"
    MODE_NOT_SUPPORTED = "mode-not-supported"
    PATH_OUTSIDE_PROJECT = "path-outside-project"
    FILE_NOT_FOUND = "file-not-found"
    SYSTEM_SCOPE_UNSUPPORTED = "system-scope-unsupported"
    PLAN_TOKEN_MISMATCH = "plan-token-mismatch"
    ARCHIVE_MISSING = "archive-missing"
    RECEIPT_UNPARSABLE = "receipt-unparsable"
    NO_SUBPROCESS = "no-subprocess"
    UNSUPPORTED_VERSION_SYNTAX = "unsupported-version-syntax"


class WarningCode(StrEnum):
    """Warning codes carried in ``warnings[]``; never a failure on their own."""

    SCRIPT_CHANGED_SINCE_LAST_RECEIPT = "SCRIPT_CHANGED_SINCE_LAST_RECEIPT"
    SCRIPT_CHANGED_DURING_RUN = "SCRIPT_CHANGED_DURING_RUN"
    ARCHIVED_SCRIPT_RERUN = "ARCHIVED_SCRIPT_RERUN"
    ARCHIVE_RETENTION_EXCEEDED = "ARCHIVE_RETENTION_EXCEEDED"
    PACKAGE_PRECHECK_SKIPPED = "PACKAGE_PRECHECK_SKIPPED"
    PACKAGE_PRECHECK_UNKNOWN = "PACKAGE_PRECHECK_UNKNOWN"
    OUTPUT_TRUNCATED = "OUTPUT_TRUNCATED"
