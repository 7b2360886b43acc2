"""A file as it was locked: path, size and both digests (sha256, git blob id)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LockedFile:
    """A locked file's path, size, sha256 and git blob id."""

    path: str
    size: int
    sha256: str
    blob: str
