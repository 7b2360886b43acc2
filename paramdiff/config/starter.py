"""`paramdiff init PROFILE`: a starter sources.yaml and overlay for a profile this project ships.

The profiles come from package data (``paramdiff/data``: copies of this repository's
sources.yaml and overlays, kept byte-identical by a test), so ``pip install paramdiff``
is enough to start in another repository.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
from dataclasses import dataclass
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ..errors import ConfigError, ParamdiffError
from ..files import project_path, write_atomic
from .overlay import parse_overlay
from .sources import SOURCES_FILE, Config, parse_config
from .yaml12 import Dumper
from .yamlfile import load_yaml

HEADER = """\
# sources.yaml — which upstream files describe the vehicle, per pin; written by
# `paramdiff init {profile}` from the profile paramdiff ships. Next:
#   paramdiff fetch && paramdiff derive && paramdiff report && paramdiff check
# Reference: paramdiff's README, "sources.yaml".
"""


@dataclass(frozen=True)
class Starter:
    """The files `init` writes for one profile."""

    files: dict[str, bytes]  # relative path -> bytes, sources.yaml first

    @property
    def paths(self) -> list[str]:
        return list(self.files)


def shipped(name: str) -> bytes:
    return (resources.files("paramdiff") / "data" / name).read_bytes()


def shipped_profiles() -> list[str]:
    return list(_shipped_config().profiles)


def shipped_descriptions() -> dict[str, str]:
    """Each shipped profile's name and description (`init --help` lists them)."""
    return {name: p.description for name, p in _shipped_config().profiles.items()}


def _shipped_config() -> Config:
    """The shipped sources.yaml, validated as any sources.yaml is (every value's type) before
    ``starter`` picks values out of it."""
    return parse_config(shipped(SOURCES_FILE), f"paramdiff/data/{SOURCES_FILE}", Path("."))


def starter(profile: str, derived: str | None) -> Starter:
    """The files ``init`` writes, validated as paramdiff will read them."""
    config = _shipped_config()
    if profile not in config.profiles:
        raise ConfigError(
            f"paramdiff ships no profile '{profile}'",
            f"use one of: {', '.join(config.profiles)}",
        )
    chosen = config.profiles[profile]
    if chosen.overlay is None:
        raise ConfigError(
            f"paramdiff's profile '{profile}' has no overlay to start from",
            "choose a profile with an overlay",
        )
    raw = load_yaml(shipped(SOURCES_FILE), SOURCES_FILE).data  # the document checked above
    prof: dict[str, Any] = dict(raw["profiles"][profile])
    if derived is not None:
        _check_relative(derived)
        prof["derived"] = derived
    overlay_name = posixpath.basename(chosen.overlay)
    overlay_data = shipped(f"overlays/{overlay_name}")
    prof["overlay"] = f"overlays/{overlay_name}"
    parse_overlay(overlay_data, prof["overlay"])  # what we write, paramdiff reads
    roles = {r for pin in chosen.pins.values() for r in pin}
    # Models kept in this repository do not exist in another one; pinned roles travel.
    prof["target_models"] = [t for t in chosen.target_models if t in roles]
    doc = {"version": 1, "categories": raw.get("categories") or [], "profiles": {profile: prof}}
    text = HEADER.format(profile=profile) + yaml.dump(
        doc, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100
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
    """Write every file, or none: every target and the folders on its way are checked before
    the first byte is written (an existing file is never overwritten, a symlink out of the
    project is refused), and a write that still fails removes what this run created."""
    targets = {rel: _free_target(root, rel) for rel in s.paths}
    created: list[Path] = []  # files and folders this run made, in order
    try:
        for rel, data in s.files.items():
            path = targets[rel]
            created += [p for p in reversed(path.parents) if not p.exists()]
            write_atomic(path, data)
            created.append(path)
    except ParamdiffError:
        for made in reversed(created):
            with contextlib.suppress(OSError):
                if made.is_dir():
                    made.rmdir()  # only when empty: a folder someone filled meanwhile stays
                else:
                    made.unlink()
        raise
    return s.paths


def _free_target(root: Path, rel: str) -> Path:
    """``root/rel`` when init may create it: inside the project (symlinks resolved), not there
    yet (not even as a dangling link), below folders that are folders and writable."""
    path = project_path(root, rel)  # a symlink on the way out of the project: refused
    if path.exists() or path.is_symlink():
        raise ConfigError(
            "already exists; paramdiff init never overwrites",
            f"remove or rename {rel}, or run paramdiff init in another directory",
            file=rel,
        )
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        if folder.is_symlink():  # a dangling link: mkdir would fail after other writes
            break
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        shown = os.path.relpath(folder, root) if folder != root else str(root)
        raise ConfigError(
            f"cannot create {rel}: {shown} is not a writable folder",
            f"make {shown} a writable folder, or run paramdiff init in another directory",
            file=rel,
        )
    return path
