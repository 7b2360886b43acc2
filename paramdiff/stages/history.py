"""When the pin moves: what changed between two versions of a file, and one parameter's
value across upstream history."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from typing import Any

from ..config.roles import PARAM_FORMATS, SourceSpec
from ..errors import InputError, UsageError
from ..model.values import format_value, same_value
from ..parse.any import parse_any
from ..upstream.cache import Cache
from ..upstream.engine import FetchedRole
from ..upstream.fetch import FetchResult
from ..upstream.transports import MirrorTransport


def update_hint(cache: Cache, result: FetchResult, other_pins: list[str]) -> Iterator[str]:
    """After `fetch --update`: how many parameters moved, and the commands that show them."""
    for r in result.roles:
        if r.previous is None or not r.changed or r.spec.format not in PARAM_FORMATS:
            continue
        changed = _changed_names(cache, r)
        if changed is None:
            continue
        shown = ", ".join(changed[:6]) + (
            f" (+{len(changed) - 6} more)" if len(changed) > 6 else ""
        )
        where = f"--profile {result.profile} --pin {result.pin} --role {r.spec.role}"
        yield (
            f"{r.spec.role}: {len(changed)} parameters changed upstream "
            f"({r.previous.commit[:12]} -> {r.entry.commit[:12]}): {shown or 'none'}"
        )
        if changed:
            yield (
                f"  each one's values over upstream history: paramdiff history {changed[0]} "
                + where
            )
        if other_pins:
            yield (
                f"  against another pin: paramdiff compare pins {other_pins[0]} {result.pin} "
                f"--profile {result.profile} --role {r.spec.role}"
            )


def _changed_names(cache: Cache, r: FetchedRole) -> list[str] | None:
    """Names whose value differs between the previous and the new version (None when the
    previous version is no longer in the content-addressed cache, or does not parse)."""
    assert r.previous is not None
    cached = {i.path: cache.get(i.sha256) for i in r.previous.includes}
    old = cache.get(r.previous.sha256)
    old_files = {path: data for path, data in cached.items() if data is not None}
    if old is None or len(old_files) != len(cached):
        return None
    try:
        a = parse_any(
            old, r.spec.path, r.spec.format, lenient=True, read_include=old_files.__getitem__
        ).params
        b = parse_any(
            r.data, r.spec.path, r.spec.format, lenient=True, read_include=r.includes.__getitem__
        ).params
    except (InputError, KeyError):
        return None
    return sorted(
        n
        for n in set(a) | set(b)
        if n not in a or n not in b or not same_value(a[n].value, b[n].value)
    )


def value_history(
    source: Any, spec: SourceSpec, included: list[str], pattern: str
) -> list[list[str]]:
    """The value of ``pattern`` (a name or glob) in ``spec``'s file at every commit that
    changed it or a file it includes, oldest first: rows of (commit, date, subject, values).

    ``source`` is a transport that can list commits (mirror MANIFEST or git log).
    """
    commits = source.commits_touching(spec.repo, spec.ref, [spec.path, *included])
    if not commits:
        raise _no_history(source, spec)
    rows: list[list[str]] = []
    last: list[bytes] = []
    for commit in reversed(commits):
        sha = commit["sha"]
        read: list[bytes] = [source.get(spec.repo, sha, spec.path).data]

        def read_include(path: str, sha: str = sha, read: list[bytes] = read) -> bytes:
            data = source.get(spec.repo, sha, path).data
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


def _no_history(source: Any, spec: SourceSpec) -> UsageError:
    """Why there is not a single commit to show: a mirror keeps single files at the commits
    it pinned, not a repository's history (its MANIFEST may list no commits at all)."""
    if isinstance(source, MirrorTransport):
        return UsageError(
            f"no upstream commit in the mirror's MANIFEST holds {spec.repo}:{spec.path} "
            "(the mirror holds that file at pinned commits only, not its history)",
            "its history needs git: run without --mirror/PARAMDIFF_MIRROR (history then reads "
            "git log; --git-base URL for another host)",
        )
    if spec.is_local:
        return UsageError(
            f"git log of this repository lists no commit that changed {spec.path}",
            "commit the file; its history is this repository's",
        )
    return UsageError(
        f"git log of {spec.repo} at {spec.ref} lists no commit that changed {spec.path}",
        "check the role's repo, ref and path in sources.yaml",
    )


def _printable(text: str) -> str:
    """Upstream's words shown on a terminal: control characters (an OSC title sequence, CR/LF
    that would break the table) become spaces."""
    return "".join(" " if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in text)
