"""Where an SDF model's ``<include>``s lead: ``model://NAME`` names one plain folder, the
repository paths a pinned model includes, and the resolvers (the pinned repository's fetched
bytes, or folders on disk as Gazebo looks them up).

Apart from the merge (``sdf_include``) because every run that reads a pinned model lists its
includes to check them against the lock, and only ``check`` and ``report`` merge.
"""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paramdiff.errors import InputError, quote
from paramdiff.parse.named_files import read_local
from paramdiff.parse.sdf import _line, _local, _parse_xml

MODEL_URI = "model://"

# (model NAME, including file, line of the <include>) -> (file label, bytes) of NAME's model.sdf
Resolver = Callable[[str, str, int], tuple[str, bytes]]


def _child(elem: Any, name: str) -> Any:
    for c in elem:
        if _local(c.tag) == name:
            return c
    return None


def _model_name(uri: str, file: str, line: int) -> str:
    """NAME of ``model://NAME``: one plain folder name, so the model it names can only be a
    folder of the directory it is searched in (never ``..``, a sub-path or an absolute path)."""
    if not uri.startswith(MODEL_URI):
        raise InputError(
            f"<include> uri '{quote(uri)}' is not model://NAME",
            "include models by model://NAME (Fuel and file URIs are not resolved)",
            file=file or None,
            line=line,
        )
    name = uri[len(MODEL_URI) :].rstrip("/")
    check_model_name(name, file, line)
    return name


def check_model_name(name: str, file: str, line: int) -> None:
    """Refuse a model NAME that is not one plain folder name."""
    if (
        name in ("", ".", "..")
        or any(c in name for c in "/\\:")
        or not name.isprintable()
        or name.startswith("~")
    ):
        raise InputError(
            f"<include> model://{quote(name)} does not name a model folder (NAME must be one "
            "folder name: no /, \\, .., drive or absolute path)",
            "include the model by its folder name, model://NAME, and put that folder beside "
            "the model's folder or in GZ_SIM_RESOURCE_PATH",
            file=file or None,
            line=line,
        )


# Memoized per process like _parse_xml (sdf.py): the result is shared, so read-only.
@functools.lru_cache(maxsize=32)
def repo_include_paths(path: str, data: bytes) -> list[str]:
    """Repository paths a pinned model.sdf includes: ``model://NAME`` is the sibling folder
    NAME of the model's folder (``models/a/model.sdf`` -> ``models/NAME/model.sdf``)."""
    root = _parse_xml(data, path)
    models_dir = posixpath.dirname(posixpath.dirname(path))
    names = []
    for elem in root.iter():
        if _local(elem.tag) == "include":
            uri = _child(elem, "uri")
            text = ((uri.text if uri is not None else "") or "").strip()
            names.append(_model_name(text, path, _line(elem)))
    return [posixpath.join(models_dir, n, "model.sdf") for n in dict.fromkeys(names)]


def repo_resolver(top_path: str, files: dict[str, bytes]) -> Resolver:
    """model://NAME inside a pinned repository, from the bytes fetched (and locked) with it."""

    def resolve(name: str, parent: str, line: int) -> tuple[str, bytes]:
        check_model_name(name, parent, line)
        path = posixpath.join(posixpath.dirname(posixpath.dirname(parent)), name, "model.sdf")
        if path not in files:
            raise InputError(
                f"<include> model://{name} is not among the files fetched with {top_path} "
                f"(looked for {path})",
                "run paramdiff fetch --update so the lock records every included model",
                file=parent,
                line=line,
            )
        return path, files[path]

    return resolve


def local_resolver(env: dict[str, str] | None = None) -> Resolver:
    """model://NAME for a model on disk: a sibling folder of the model's folder, then each
    folder of GZ_SIM_RESOURCE_PATH (as Gazebo looks it up). The model.sdf found must stay
    inside the folder it was searched in once symlinks are resolved: a model folder that is a
    link out of it is refused, not merged."""
    environ = os.environ if env is None else env

    def resolve(name: str, parent: str, line: int) -> tuple[str, bytes]:
        check_model_name(name, parent, line)
        folders = [Path(parent).parent.parent]
        for entry in environ.get("GZ_SIM_RESOURCE_PATH", "").split(os.pathsep):
            if entry:
                folders.append(Path(entry))
        for folder in folders:
            candidate = folder / name / "model.sdf"
            if candidate.is_file():
                return candidate.as_posix(), read_local(_inside(candidate, folder, parent, line))
        raise InputError(
            f"<include> model://{name} not found (looked in "
            + ", ".join((f / name / "model.sdf").as_posix() for f in folders)
            + ")",
            f"put {name}/model.sdf beside the model's folder or add its parent folder to "
            "GZ_SIM_RESOURCE_PATH",
            file=parent,
            line=line,
        )

    return resolve


def _inside(candidate: Path, folder: Path, parent: str, line: int) -> Path:
    """``candidate`` with its symlinks resolved, refused when that leaves ``folder``."""
    real = candidate.resolve()
    if not real.is_relative_to(folder.resolve()):
        raise InputError(
            f"<include> {candidate.as_posix()} leads outside {folder.as_posix()} "
            f"(to {real.as_posix()})",
            "replace the link with the model folder itself, inside the folder it is looked up in",
            file=parent,
            line=line,
        )
    return real
