"""One parameter's value across a file's history: given the commits that changed it and a way
to read a file at a commit (the history job, ``jobs/history.py``, supplies both from a mirror,
git or this repository)."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping, Sequence

from paramdiff.config.roles import SourceSpec
from paramdiff.errors import UsageError
from paramdiff.model.values import format_value
from paramdiff.parse.any import parse_any

# Reads ``path`` of the role's repository at commit ``sha``: (sha, path) -> bytes
ReadAt = Callable[[str, str], bytes]


def value_history(
    commits: Sequence[Mapping[str, str]], read_at: ReadAt, spec: SourceSpec, pattern: str
) -> list[list[str]]:
    """The value of ``pattern`` (a name or glob) in ``spec``'s file at each of ``commits``
    (newest first, as git log lists them: sha, date, subject), oldest first: rows of (commit,
    date, subject, values). A commit that changed neither the file nor anything it includes
    (a mirror lists every commit it holds) is skipped.
    """
    rows: list[list[str]] = []
    last: list[bytes] = []
    for commit in reversed(commits):
        sha = commit["sha"]
        read: list[bytes] = [read_at(sha, spec.path)]

        def read_include(path: str, sha: str = sha, read: list[bytes] = read) -> bytes:
            data = read_at(sha, path)
            read.append(data)
            return data

        params = parse_any(
            read[0], spec.path, spec.format, lenient=True, read_include=read_include
        ).params
        if read == last:
            continue  # the commit changed neither this file nor anything it includes
        last = read
        names = sorted(n for n in params if fnmatch.fnmatchcase(n, pattern.upper()))
        values = ", ".join(f"{n}={format_value(params[n].value)}" for n in names) or "(not set)"
        subject = _printable(str(commit["subject"]))[:60]
        rows.append([sha[:12], _printable(str(commit["date"]))[:10], subject, values])
    if all(row[-1] == "(not set)" for row in rows):
        raise UsageError(
            f"no parameter matches '{pattern}' in {spec.role} ({spec.path}) at any of the "
            f"{len(rows)} upstream commit(s) that changed it",
            "check the name; a glob such as 'ATC_RAT_*' needs quotes in the shell",
        )
    return rows


def _printable(text: str) -> str:
    """Upstream's words shown on a terminal: control characters (an OSC title sequence, CR/LF
    that would break the table) become spaces."""
    return "".join(" " if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in text)
