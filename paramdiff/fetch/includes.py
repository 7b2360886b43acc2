"""Which files a pinned file includes, so fetch pins them at the same commit."""

from __future__ import annotations

from paramdiff.config.roles import SourceSpec
from paramdiff.parse.param_text import include_paths
from paramdiff.parse.sdf_paths import repo_include_paths
from paramdiff.parse.text import detect_format


def pinned_includes(spec: SourceSpec, path: str, data: bytes) -> list[str]:
    """Include finder for fetch: BlueOS include-format files and SDF models (``<include>
    model://NAME``) pull in others at the same commit. ``format: auto`` finds them as its
    reader will: the main file by what it looks like (parse.text.detect_format), a file it
    includes as BlueOS's, which is how parse.param_text reads every included file."""
    fmt = spec.format
    if fmt == "auto":
        detected = detect_format(data, path)
        fmt = detected if path == spec.path or detected == "sdf" else "blueos"
    if fmt == "sdf":
        return repo_include_paths(path, data)
    if fmt != "blueos":
        return []
    return include_paths(data, path)
