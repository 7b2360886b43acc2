"""One side of a compare: a parsed file with its role, its pin and its firmware's metadata."""

from __future__ import annotations

from typing import NamedTuple

from paramdiff.model.locked import LockedFile
from paramdiff.model.metadata import Metadata, firmware_of
from paramdiff.model.params import ParamFile


class Source(NamedTuple):
    """One side of a compare: a parsed file with its role and its firmware's metadata
    (``source._replace(role=...)`` for a copy with other fields)."""

    role: str
    file: ParamFile
    metadata: Metadata | None = None
    repo: str | None = None
    commit: str | None = None
    path: str | None = None
    sha256: str | None = None
    lenient: bool = False
    declared_version: str | None = None  # sources.yaml's `firmware:` for files with no header
    includes: tuple[LockedFile, ...] = ()  # files it %includes, at the same commit

    @property
    def version(self) -> str | None:
        return self.file.header.get("Version") or self.declared_version

    @property
    def version_origin(self) -> str:
        if self.file.header.get("Version"):
            return "header"
        return "declared in sources.yaml" if self.declared_version else "no version header"

    @property
    def firmware(self) -> str | None:
        return firmware_of(self.version)
