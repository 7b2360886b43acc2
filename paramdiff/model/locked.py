"""A file as it was locked: path, size and both digests (sha256, git blob id)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LockedFile:
    path: str
    size: int
    sha256: str
    blob: str
