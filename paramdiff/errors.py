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
        text = f"{self.where}: {self.what}" if self.where else self.what
        return f"{text} — {self.fix}" if self.fix else text

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
    def message(self) -> str:
        if len(self.findings) == 1:
            return f"{self.findings[0]} — {self.fix}"
        body = "\n".join(f"  - {f}" for f in self.findings)
        return f"{self.what}:\n{body}\nFix: {self.fix}"
