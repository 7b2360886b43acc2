"""Files named on the command line (``show``, ``diff``): read, parse, label by path."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import InputError
from ..model.source import Source
from .any import parse_any


def read_local(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(
            f"cannot read the file: {exc.strerror}", "check the path", file=str(path)
        ) from None


def local_source(
    path: Path,
    fmt: str = "auto",
    lenient: bool = False,
    role: str | None = None,
    joint_roles: dict[str, int] | None = None,
) -> Source:
    name = path.as_posix()

    def read_include(inc: str) -> bytes:
        return read_local(Path(inc))

    parsed = parse_any(
        read_local(path),
        name,
        fmt,
        lenient=lenient,
        joint_roles=joint_roles,
        read_include=read_include,
    )
    return Source(role=role or path.name, file=parsed, path=name, lenient=lenient)


def local_sources(paths: Iterable[Path], fmt: str = "auto", lenient: bool = False) -> list[Source]:
    sources: list[Source] = []
    used: set[str] = set()
    for path in paths:
        role = path.name
        if role in used:  # the same file name from different folders: disambiguate by path
            role = path.as_posix()
        n = 2
        base = role
        while role in used:
            role, n = f"{base}#{n}", n + 1
        used.add(role)
        sources.append(local_source(path, fmt, lenient, role))
    return sources
