"""A file as it was locked: path, size and both digests (sha256, git blob id)."""

from __future__ import annotations

from typing import NamedTuple


class LockedFile(NamedTuple):
    """A locked file's path, size, sha256 and git blob id."""

    path: str
    size: int
    sha256: str
    blob: str
