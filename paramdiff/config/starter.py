"""`paramdiff init PROFILE`: a starter sources.yaml and overlay for a profile this project ships.

The profiles come from package data (``paramdiff/data``: copies of this repository's
sources.yaml and overlays, kept byte-identical by a test), so ``pip install paramdiff``
is enough to start in another repository.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ..errors import ConfigError
from ..files import project_path, write_atomic
from .sources import SOURCES_FILE, parse_config

HEADER = """\
# sources.yaml — which upstream files describe the vehicle, per pin; written by
# `paramdiff init {profile}` from the profile paramdiff ships. Next:
#   paramdiff fetch && paramdiff derive && paramdiff report && paramdiff check
# Reference: paramdiff's README, "sources.yaml".
"""


@dataclass(frozen=True)
class Starter:
    files: dict[str, bytes]  # relative path -> bytes, sources.yaml first

    @property
    def paths(self) -> list[str]:
        return list(self.files)


def shipped(name: str) -> bytes:
    return (resources.files("paramdiff") / "data" / name).read_bytes()


def shipped_profiles() -> list[str]:
    raw = yaml.safe_load(shipped(SOURCES_FILE))
    return list(raw["profiles"])


def starter(profile: str, derived: str | None) -> Starter:
    """The files ``init`` writes, validated as paramdiff will read them."""
    raw = yaml.safe_load(shipped(SOURCES_FILE))
    if profile not in raw["profiles"]:
        raise ConfigError(
            f"paramdiff ships no profile '{profile}'",
            f"use one of: {', '.join(raw['profiles'])}",
        )
    prof: dict[str, Any] = dict(raw["profiles"][profile])
    if derived is not None:
        _check_relative(derived)
        prof["derived"] = derived
    overlay_name = posixpath.basename(prof["overlay"])
    overlay_data = shipped(f"overlays/{overlay_name}")
    prof["overlay"] = f"overlays/{overlay_name}"
    roles = {r for pin in prof["pins"].values() for r in pin}
    # Models kept in this repository do not exist in another one; pinned roles travel.
    prof["target_models"] = [t for t in prof.get("target_models") or [] if t in roles]
    doc = {"version": 1, "categories": raw["categories"], "profiles": {profile: prof}}
    text = HEADER.format(profile=profile) + yaml.safe_dump(
        doc, sort_keys=False, allow_unicode=True, width=100
    )
    data = text.encode()
    parse_config(data, SOURCES_FILE, Path("."))  # what we write, paramdiff reads
    return Starter({SOURCES_FILE: data, prof["overlay"]: overlay_data})


def _check_relative(path: str) -> None:
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts or not p.name:
        raise ConfigError(
            f"--derived {path} is not a path inside the repository",
            "give a relative path without '..', e.g. blueboat_gazebo/params/blueboat_sitl.params",
        )


def write_starter(root: Path, s: Starter) -> list[str]:
    """Write every file, or none: an existing file is never overwritten."""
    for rel in s.paths:
        if (root / rel).exists():
            raise ConfigError(
                "already exists; paramdiff init never overwrites",
                f"remove or rename {rel}, or run paramdiff init in another directory",
                file=rel,
            )
    for rel, data in s.files.items():
        write_atomic(project_path(root, rel), data)
    return s.paths
