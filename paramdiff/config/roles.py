"""A pin's roles in sources.yaml: which file each names (upstream, or a file of this
repository), in which format, over which transport. Validated with file, line and fix."""

from __future__ import annotations

import posixpath
import re
from pathlib import PurePosixPath
from typing import Any, NamedTuple

from paramdiff.config.validators import check_keys, check_ref, check_relpath, check_repo, flag, text
from paramdiff.config.yamlfile import KeyPath, YamlDoc
from paramdiff.errors import quote

PARAM_FORMATS = ("auto", "params", "mp", "qgc", "blueos")
# thrust_table: a thruster's measured thrust against PWM (parse/thrust_table.py)
FORMATS = (*PARAM_FORMATS, "sdf", "names", "pdef", "thrust_table")
TRANSPORTS = ("https", "git", "mirror")

ROLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")
# The repository of a role that is a file of the project's own repository (``file:``): a
# team's own dump of its boat, pinned by size and digests like an upstream file.
LOCAL_REPO = "."
# The files paramdiff itself keeps beside the profiles: never a role's file, never an output
PROJECT_INPUTS = ("sources.yaml", "sources.lock", ".sources.lock.lock")


class SourceSpec(NamedTuple):
    """One upstream file a pin names."""

    role: str
    repo: str
    ref: str
    path: str
    format: str
    line: int
    firmware: str | None = None
    lenient: bool = False
    transport: str | None = None

    @property
    def is_local(self) -> bool:
        """A file of this repository (``file:``), not an upstream one."""
        return self.repo == LOCAL_REPO

    def describe(self, ref: str | None = None) -> str:
        if self.is_local:
            return f"{self.role} ({self.path} in this repository)"
        return f"{self.role} ({self.repo}@{ref or self.ref} {self.path})"


def _local_source(doc: YamlDoc, path: KeyPath, role: str, raw: Any) -> SourceSpec:
    """``file: field/boat7.params``: a file of this repository, e.g. a dump of the team's own
    boat saved from QGroundControl, MAVProxy, Mission Planner, BlueOS or `paramdiff pull`."""
    check_keys(doc, path, raw, {"file"}, {"format", "firmware", "lenient"})
    file = check_relpath(raw["file"], doc, (*path, "file"))
    plain = posixpath.normpath(file)
    if plain != file:  # `./sources.lock`, `field/`: the checks below compare plain paths
        raise doc.error((*path, "file"), f"role '{role}' names {file!r}", f"write it as {plain!r}")
    if PurePosixPath(file).parts[0] == ".git" or file in PROJECT_INPUTS:
        raise doc.error(
            (*path, "file"),
            f"role '{role}' names {file!r}, which is paramdiff's own file, not a parameter set",
            "name the parameter file itself, e.g. field/boat7.params",
        )
    return SourceSpec(
        role=role,
        repo=LOCAL_REPO,
        ref="",
        path=file,
        format=_format(doc, path, role, raw),
        line=doc.line(path),
        firmware=text(doc, (*path, "firmware"), raw["firmware"]) if "firmware" in raw else None,
        lenient=flag(doc, (*path, "lenient"), raw.get("lenient", False)),
    )


def _format(doc: YamlDoc, path: KeyPath, role: str, raw: Any) -> str:
    fmt = raw.get("format", "auto")
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise doc.error(
            (*path, "format"),
            f"unknown format {quote(repr(fmt))} for role '{role}'",
            f"use one of: {', '.join(FORMATS)}",
        )
    return fmt


def parse_source(doc: YamlDoc, path: KeyPath, role: str, raw: Any) -> SourceSpec:
    if isinstance(raw, dict) and "file" in raw:
        return _local_source(doc, path, role, raw)
    check_keys(
        doc, path, raw, {"repo", "ref", "path"}, {"format", "firmware", "lenient", "transport"}
    )
    fmt = _format(doc, path, role, raw)
    transport = raw.get("transport")
    if transport is not None and (not isinstance(transport, str) or transport not in TRANSPORTS):
        raise doc.error(
            (*path, "transport"),
            f"unsupported transport {quote(repr(transport))} for role '{role}' (file://, "
            "ssh:// and other schemes are refused outside an explicit --mirror)",
            f"use one of: {', '.join(TRANSPORTS)}",
        )
    lenient = flag(doc, (*path, "lenient"), raw.get("lenient", False))
    return SourceSpec(
        role=role,
        repo=check_repo(raw["repo"], doc, (*path, "repo")),
        ref=check_ref(text(doc, (*path, "ref"), raw["ref"]), doc, (*path, "ref")),
        path=check_relpath(raw["path"], doc, (*path, "path")),
        format=fmt,
        line=doc.line(path),
        firmware=text(doc, (*path, "firmware"), raw["firmware"]) if "firmware" in raw else None,
        lenient=lenient,
        transport=transport,
    )
