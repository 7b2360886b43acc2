"""`paramdiff init PROFILE`: a starter sources.yaml and overlay for a profile this project ships.

The profiles come from package data (``paramdiff/data``: copies of this repository's
sources.yaml and overlays, kept byte-identical by a test), so ``pip install paramdiff``
is enough to start in another repository.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from paramdiff.config.sources import SOURCES_FILE, Config, parse_config
from paramdiff.config.yaml12 import Dumper
from paramdiff.config.yamlfile import load_yaml
from paramdiff.errors import ConfigError, ParamdiffError
from paramdiff.files import TEXT_LIMIT, project_path, read_regular, write_atomic
from paramdiff.overlay.file import parse_overlay

HEADER = """\
# sources.yaml — which upstream files describe the vehicle, per pin; written by
# `paramdiff init {profile}` from the profile paramdiff ships. Next:
#   paramdiff fetch && paramdiff derive && paramdiff report && paramdiff check
# then, with SITL running on the derived file, record what it holds and commit verified/:
#   paramdiff verify tcp:127.0.0.1:5762 --record
# Reference: paramdiff's README, "sources.yaml".
"""


# What an adopter needs beside sources.yaml and the overlay, written only where absent: the
# CI workflow and a pre-commit configuration (package data, kept equal to this repository's
# files by a test). An existing one is the repository's own and stays as it is.
ADOPTER_FILES = {
    ".github/workflows/paramdiff.yml": "workflows/paramdiff.yml",
    ".pre-commit-config.yaml": "pre-commit-config.yaml",
}
GITIGNORE = ".gitignore"
# What paramdiff leaves in a project that is no one's to commit: the file `fetch` locks while
# it writes sources.lock, and a temp file a killed write leaves (files.write_atomic's names).
IGNORED = (".sources.lock.lock", ".*.paramdiff-*.tmp")


@dataclass(frozen=True)
class Starter:
    """The files `init` writes for one profile: ``files`` must all be new (sources.yaml
    first), ``optional`` ones are written only where absent."""

    files: dict[str, bytes]  # relative path -> bytes
    optional: dict[str, bytes] = field(default_factory=dict)

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
        # A declared launch that loads the derived file loads it from its new path.
        old = prof.get("derived")
        prof["launches"] = [_moved(item, old, derived) for item in prof.get("launches") or []]
        if not prof["launches"]:
            del prof["launches"]
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
    optional = {rel: shipped(name) for rel, name in ADOPTER_FILES.items()}
    return Starter({SOURCES_FILE: data, prof["overlay"]: overlay_data}, optional)


def _moved(item: Any, old: str | None, new: str) -> Any:
    """A launch (a command or {command, ...}) with the derived path ``old`` replaced."""
    if not old:
        return item
    if isinstance(item, str):
        return item.replace(old, new)
    return {**item, "command": str(item.get("command", "")).replace(old, new)}


def _check_relative(path: str) -> None:
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts or not p.name:
        raise ConfigError(
            f"--derived {path} is not a path inside the repository",
            "give a relative path without '..', e.g. blueboat_gazebo/params/blueboat_sitl.params",
        )


def write_starter(root: Path, s: Starter) -> list[str]:
    """Write every file, or none, and say what was done, one line each: every target and
    the folders on its way are checked before the first byte is written (an existing file is
    never overwritten — an optional one is kept —, a symlink out of the project is refused),
    ``.gitignore`` gets the lines of IGNORED it lacks, and a write that still fails removes
    what this run created."""
    targets = {rel: _free_target(root, rel) for rel in s.paths}
    optional = {}
    kept = []
    for rel in s.optional:
        if _exists(root, rel):
            kept.append(f"{rel} kept (it exists; paramdiff's is in paramdiff/data)")
        else:
            optional[rel] = _free_target(root, rel)
    ignore_path = project_path(root, GITIGNORE)
    ignore = _ignore_lines(ignore_path)
    created: list[Path] = []  # files and folders this run made, in order
    done = []
    try:
        for rel, data in [*s.files.items(), *((r, s.optional[r]) for r in optional)]:
            path = targets.get(rel) or optional[rel]
            created += [p for p in reversed(path.parents) if not p.exists()]
            write_atomic(path, data)
            created.append(path)
            done.append(f"{rel} written")
        if ignore is not None:
            existed = ignore_path.exists()
            write_atomic(ignore_path, ignore[0])
            if not existed:
                created.append(ignore_path)
            done.append(f"{GITIGNORE}: {', '.join(ignore[1])} added")
    except ParamdiffError:
        for made in reversed(created):
            with contextlib.suppress(OSError):
                if made.is_dir():
                    made.rmdir()  # only when empty: a folder someone filled meanwhile stays
                else:
                    made.unlink()
        raise
    return [*done, *kept]


def _exists(root: Path, rel: str) -> bool:
    path = project_path(root, rel)  # a symlink on the way out of the project: refused
    return path.exists() or path.is_symlink()


def _ignore_lines(path: Path) -> tuple[bytes, list[str]] | None:
    """``.gitignore``'s new bytes and the IGNORED lines it gains, or None when it has them
    all (idempotent: a second init adds nothing). A missing file is created."""
    try:
        old = read_regular(path, limit=TEXT_LIMIT, label=GITIGNORE)
    except FileNotFoundError:
        old = b""
    have = {line.strip() for line in old.decode("utf-8", "replace").splitlines()}
    missing = [line for line in IGNORED if line not in have]
    if not missing:
        return None
    head = old if not old or old.endswith(b"\n") else old + b"\n"
    block = "# paramdiff: its lock file and interrupted writes' temp files\n"
    return head + (block + "\n".join(missing) + "\n").encode(), missing


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
