"""Files named on the command line (``show``, ``diff``): read, parse, label by path."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from paramdiff.errors import InputError, quote
from paramdiff.files import TEXT_LIMIT, read_regular
from paramdiff.model.source import Source
from paramdiff.parse.any import parse_any


def read_local(path: Path) -> bytes:
    try:
        return read_regular(path, limit=TEXT_LIMIT, label=path.as_posix())
    except FileNotFoundError as exc:
        raise InputError(
            f"cannot read the file: {exc.strerror}", "check the path", file=str(path)
        ) from None


def include_root_for(path: Path, root: Path | None = None) -> Path:
    """Where a local file's BlueOS ``%include`` paths must stay: ``root`` when given (--root),
    else the git work tree holding the file, else the file's own directory."""
    if root is not None:
        return root.resolve()
    here = path.resolve().parent
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here


def local_source(
    path: Path,
    fmt: str = "auto",
    lenient: bool = False,
    role: str | None = None,
    joint_roles: dict[str, int] | None = None,
    root: Path | None = None,
) -> Source:
    name = path.as_posix()
    include_root = include_root_for(path, root)

    def read_include(inc: str) -> bytes:
        # The parser checked the path as written; this checks where it really leads
        # (a symlink inside the tree may point out of it).
        # os.path.realpath, not Path.resolve: a symlink loop makes resolve raise
        # RuntimeError; realpath returns a path, and the read below names the loop.
        if not Path(os.path.realpath(inc)).is_relative_to(include_root):
            raise InputError(
                f"%include '{quote(inc)}' leads outside the include root {include_root}",
                "fix the include path, or pass --root",
                file=name,
            )
        return read_local(Path(inc))

    parsed = parse_any(
        read_local(path),
        name,
        fmt,
        lenient=lenient,
        joint_roles=joint_roles,
        read_include=read_include,
        include_root=os.path.relpath(include_root) if not path.is_absolute() else str(include_root),
    )
    return Source(role=role or path.name, file=parsed, path=name, lenient=lenient)


def local_sources(
    paths: Iterable[Path], fmt: str = "auto", lenient: bool = False, root: Path | None = None
) -> list[Source]:
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
        sources.append(local_source(path, fmt, lenient, role, root=root))
    return sources
