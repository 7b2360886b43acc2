"""Domain exceptions. Each carries the whole message the user sees.

The CLI prints ``Error: <str(exc)>`` and exits with ``exc.exit_code``:
2 for usage or input errors, 1 for drift found by a check.
"""

from __future__ import annotations


class ParamdiffError(Exception):
    """Base class: ``<where>: <what> — <fix>``."""

    exit_code = 2

    def __init__(
        self,
        what: str,
        fix: str | None = None,
        *,
        file: str | None = None,
        line: int | None = None,
    ) -> None:
        self.what = what
        self.fix = fix
        self.file = file
        self.line = line
        super().__init__(self.message)

    @property
    def where(self) -> str:
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    @property
    def message(self) -> str:
        # A backstop for every call site: one line, and bounded however much input a
        # message quotes (parsers already cut what they quote to QUOTE_LIMIT).
        what = quote(self.what, MESSAGE_LIMIT)
        text = f"{self.where}: {what}" if self.where else what
        return f"{text} — {quote(self.fix, MESSAGE_LIMIT)}" if self.fix else text

    def __str__(self) -> str:
        return self.message


class InputError(ParamdiffError):
    """A file we were given (params, SDF, YAML, metadata) is not what it must be."""


class ConfigError(InputError):
    """sources.yaml, an overlay or the lock is malformed or inconsistent."""


class FetchError(ParamdiffError):
    """Something upstream could not be fetched or did not verify."""


class UsageError(ParamdiffError):
    """The command line asks for something that cannot be done (exit 2)."""


class StaleOverlayError(ConfigError):
    """A delta was written against a value upstream no longer has."""


class DriftError(ParamdiffError):
    """A check found differences; exit 1 so CI can tell drift from misuse."""

    exit_code = 1

    def __init__(self, findings: list[str], fix: str) -> None:
        self.findings = findings
        super().__init__(f"{len(findings)} problem(s) found", fix)

    @property
    def details(self) -> list[str]:
        """Lines printed before the one Error line: each finding, when there are several."""
        return (
            []
            if len(self.findings) == 1
            else [f"  - {quote(f, MESSAGE_LIMIT)}" for f in self.findings]
        )

    @property
    def message(self) -> str:
        fix = quote(self.fix or "", MESSAGE_LIMIT)
        if len(self.findings) == 1:
            return f"{quote(self.findings[0], MESSAGE_LIMIT)} — {fix}"
        return f"{self.what} (listed above) — {fix}"


QUOTE_LIMIT = 80
MESSAGE_LIMIT = 1000  # the longest real message (a list of valid keys, joined fixes) is shorter


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """Offending input as an error shows it: at most ``limit`` characters (a 200 MB value
    must not make a 200 MB error line), control characters escaped (one line stays one)."""
    short = text[:limit]
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in short)
    return shown if len(text) <= limit else f"{shown}… ({len(text)} characters)"


ECHO_LIMIT = 200  # a launch command line or a path an error echoes back


def echoed(text: str) -> str:
    """A launch or path as an error quotes it back: in quotes, cut at ``ECHO_LIMIT``
    characters with a mark saying so (a 100,000-character path must not fill the Error
    line); the one place every such echo goes through."""
    return f"'{quote(text, ECHO_LIMIT)}'" if len(text) > ECHO_LIMIT else repr(text)


INTERNAL_ERROR_EXIT = 3


def internal_error_line(exc: BaseException) -> str:
    """The one line an unexpected exception becomes (exit 3, never 1: 1 means drift)."""
    what = quote(f"{type(exc).__name__}: {exc}", 200)
    return (
        f"Error: internal error ({what}) — this is a bug in paramdiff; please report it with "
        "the command you ran"
    )
