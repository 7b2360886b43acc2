"""`paramdiff pull`: every parameter of a vehicle or a running SITL, as a file, and where it
may go (the pull itself is ``vehicle.mavlink_pull``)."""

from __future__ import annotations

from pathlib import Path

from paramdiff.outputs import ProjectFiles
from paramdiff.project import Project
from paramdiff.render.sinks import Outputs, output_for
from paramdiff.vehicle.dump import dump_lines
from paramdiff.vehicle.mavlink_pull import Progress, PullLimits, pull


def pull_file(
    connection: str,
    output: Path,
    fmt: str = "params",
    limits: PullLimits | None = None,
    progress: Progress | None = None,
    root: Path | None = None,
    allow_incomplete: bool = False,
) -> Outputs:
    """`paramdiff pull`: the pulled file's lines in ``fmt`` (parse.param_text.WRITE_FORMATS) and
    where they go (``output``; ``-`` is stdout), and the pull's warnings. ``output`` is
    refused (``pull_guard``) before the pull starts; ``root`` is the folder run in (default:
    the current one). A dump that cannot hold every parameter the vehicle announced is an
    error unless ``allow_incomplete`` (vehicle.mavlink_pull)."""
    root = Path.cwd() if root is None else root
    fix = f"paramdiff pull {connection} -o PATH"
    target = output_for(root, output, None, fix, pull_guard(root))
    pulled = pull(connection, limits, progress, allow_incomplete)
    return Outputs([(dump_lines(pulled, fmt), target)], list(pulled.warnings))


def pull_guard(root: Path) -> ProjectFiles:
    """Where -o may not write: a project's own files when run in one, and never through a
    symlink out of the current directory (paramdiff/outputs.py)."""
    if not (root / "sources.yaml").is_file():
        return ProjectFiles(root, {}, {})
    options = Project(root=root)
    # pulling the boat again over its committed dump is how a team refreshes it (then
    # `paramdiff fetch` pins the new bytes); every other project file stays refused
    dumps = [
        spec.path
        for profile in options.config().profiles.values()
        for specs in profile.pins.values()
        for spec in specs.values()
        if spec.is_local
    ]
    return options.project_files().without(*dumps)
