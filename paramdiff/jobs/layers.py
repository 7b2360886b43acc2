"""`paramdiff layers`: what SITL runs, file by file, and the frame defaults left unchosen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from paramdiff.comparison.sitl_layers import stack, unchosen
from paramdiff.errors import ConfigError, DriftError, UsageError, echoed
from paramdiff.parse.named_files import local_source
from paramdiff.pin import Pin
from paramdiff.render.launch_text import launch_text
from paramdiff.render.layers_table import render_layers
from paramdiff.simulation.launch_check import adhoc

if TYPE_CHECKING:
    from paramdiff.comparison.sitl_layers import Flag, Layers


def layers_lines(
    pin: Pin,
    frame: str | None = None,
    launch: str | None = None,
    files: list[Path] | None = None,
    profile_given: bool = True,
) -> Iterator[str]:
    """`paramdiff layers`: the lines of what SITL runs (``layers``). With ``launch`` (a launch
    command line, which names the files and the frame): its stack, physics and pilot-input
    test; raises DriftError after them when it fails (a FAIL line), as check does."""
    if launch is None:
        yield from render_layers(*layers(pin, frame, files or []), pin.metadata())
        return
    if frame or files:
        raise UsageError("--launch names the files and the frame; drop --frame and FILEs")
    if not profile_given and len(pin.config.profiles) > 1:
        # as check --launch: the first profile's derived file and model would judge another
        # vehicle's launch (issue #28 review 5)
        raise UsageError(
            "--launch needs --profile: name the vehicle the launch runs",
            f"add --profile with one of: {', '.join(pin.config.profiles)}",
        )
    result = adhoc(pin.launch_inputs([launch]), launch, [])
    yield from launch_text(result)
    if not result.passed:
        raise DriftError(
            [f"launch {echoed(launch)}: {len(result.findings)} finding(s) (the FAIL lines above)"],
            "fix each where its line says, or acknowledge a model's finding in the overlay",
        )


def layers(pin: Pin, frame: str | None, files: list[Path]) -> tuple[Layers, list[Flag]]:
    """The frame defaults with ``files`` (default: the derived file) loaded on top, and
    the frame defaults that survive unchosen."""
    profile = pin.profile
    if not profile.frames:
        raise ConfigError(
            f"profile '{profile.name}' pins no sim_vehicle.py frame defaults, so there "
            "are no layers to show",
            "pin the frame's files (ArduPilot's Tools/autotest/default_params/*.parm) as "
            "roles and list them under 'frames:' in sources.yaml",
        )
    defaults = pin.frame_defaults(frame)
    if defaults is None:
        raise ConfigError(
            f"profile '{profile.name}' names no sitl_frame",
            f"pass --frame (one of: {', '.join(profile.frames)})",
        )

    added = [local_source(f, role=f.as_posix()) for f in files] or [pin.derived_source()]
    result = stack([*defaults.layers, *added], defaults.frame, defaults.frame_roles)
    flags, _ = unchosen(
        result,
        pin.source("hardware").file.params,
        pin.classifier(),
        pin.overlay().excluded_categories(),
    )
    return result, flags
