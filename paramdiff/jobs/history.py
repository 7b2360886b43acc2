"""`paramdiff history`: one parameter's value at every commit that changed a role's file, read
from the mirror's MANIFEST, git log upstream, or this repository's own log (a local role)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from paramdiff.config.roles import PARAM_FORMATS, SourceSpec
from paramdiff.errors import ConfigError, UsageError
from paramdiff.fetch.own_repo import OwnRepository
from paramdiff.fetch.transports import MirrorTransport
from paramdiff.jobs.value_history import value_history
from paramdiff.pin import Pin
from paramdiff.render.texttable import table


def history_lines(pin: Pin, role: str, pattern: str) -> Iterator[str]:
    """`paramdiff history`: ``history``'s rows as the command's text table."""
    return table(
        ["commit", "date", "subject", pattern], history(pin, role, pattern), markdown=False
    )


def history(pin: Pin, role: str, pattern: str) -> list[list[str]]:
    """``pattern``'s values in ``role``'s file at every upstream commit that changed it
    (or a file it includes), oldest first."""
    spec = pin.spec(role)
    if spec.format not in PARAM_FORMATS:
        raise ConfigError(
            f"role '{role}' is a {spec.format} file, not a parameter set",
            "follow a parameter role such as hardware or sitl",
        )
    source: Any  # a transport (or this repository) that lists commits and reads files
    included: list[str] = []
    if spec.is_local:  # a file of this repository: its own git log
        source = OwnRepository(pin.config.root)
    else:
        choice = pin.project.transports()
        if choice is None:
            raise ConfigError(
                "history needs upstream commits, and --offline forbids reaching them",
                "run it without --offline (with --mirror DIR|URL where there is no network)",
            )
        lock = pin.lock()
        entry = lock.get(pin.profile.name, pin.pin, role) if lock else None
        included = [i.path for i in entry.includes] if entry else []
        source = choice.history_source(spec)
    commits = source.commits_touching(spec.repo, spec.ref, [spec.path, *included])
    if not commits:
        raise _no_history(source, spec)

    def read_at(sha: str, path: str) -> bytes:
        data: bytes = source.get(spec.repo, sha, path).data
        return data

    return value_history(commits, read_at, spec, pattern)


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
