"""`paramdiff derive`: the pin's derived file (full, or --minimal) and where it goes."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from paramdiff.comparison.running_vehicle import runs_anyway
from paramdiff.config.sources import derive_command
from paramdiff.derive.derived import minimal
from paramdiff.errors import ConfigError, UsageError
from paramdiff.model.metadata import firmware_of
from paramdiff.model.source import Source
from paramdiff.pin import FIRMWARE_DEFAULTS_ROLE, Pin
from paramdiff.render.derived_file import derived_qgc_types, render
from paramdiff.render.sinks import Output, Outputs, output_for

if TYPE_CHECKING:
    from paramdiff.derive.derived import Derived


def derive_file(
    pin: Pin, output: Path | None = None, fmt: str = "params", minimal: bool = False
) -> Outputs:
    """`paramdiff derive`: the derived file's lines (``minimal``: ``minimal_derived``) in
    ``fmt`` and where they go (``output``: ``-o``; ``-`` is stdout), and QGC's warning of
    the names nothing pinned types. Where it goes is refused before the file is derived."""
    if minimal:
        _minimal_output(pin, output)
    target = derived_output(pin, output, fmt)  # refused before any warning about the rows
    lines, warnings = derived_lines(pin, fmt, minimal)
    files: list[tuple[Iterable[str], Output | None]] = [(lines, target)]
    if output is None and not minimal:
        files += model_outputs(pin)
    return Outputs(files, warnings)


def model_outputs(pin: Pin) -> list[tuple[Iterable[str], Output | None]]:
    """The derived model (``thrusters: model:``), written beside the params file by the
    default pin (one model per profile, as one derived file)."""
    thrusters = pin.profile.thrusters
    if thrusters is None or thrusters.model is None or pin.pin != pin.profile.default_pin:
        return []
    model = pin.derived_model()
    if model is None:  # pragma: no cover - a model path always derives one
        return []
    text = model.data.decode()
    if not text.endswith("\n") or "\r" in text:
        raise ConfigError(
            f"{model.pinned} does not end with a newline or has CR line ends, so the derived "
            "model could not keep its bytes",
            "pin a model with LF line ends",
        )
    fix = derive_command(pin.profile.name, pin.pin)
    where = output_for(pin.config.root, None, thrusters.model, fix)
    return [(text[:-1].split("\n"), where)]


def derived_lines(
    pin: Pin, fmt: str = "params", minimal: bool = False
) -> tuple[list[str], list[str]]:
    """The derived file's lines in ``fmt`` and the warnings about them."""

    derived = minimal_derived(pin) if minimal else pin.derived()
    warning = derived_qgc_types(derived).warning() if fmt == "qgc" else None
    return list(render(derived, fmt)), [warning] if warning else []


def _minimal_output(pin: Pin, output: Path | None) -> None:
    """--minimal writes a file of its own: never the profile's derived file, the full one."""
    if output is None:
        raise UsageError(
            "--minimal writes a file of its own",
            "give -o PATH (or -o -); the profile's derived file is the full one check keeps",
        )
    own = pin.profile.derived_path(pin.pin)
    if str(output) == "-" or not own:
        return
    if Path(os.path.realpath(output)) == Path(os.path.realpath(pin.config.root / own)):
        raise UsageError(
            f"-o {output} is the profile's own derived file, which stays the full one",
            "give --minimal a path of its own",
            file=str(output),
        )


def minimal_derived(pin: Pin) -> Derived:
    """The derived file without what the launch runs anyway: the pin's
    ``firmware_defaults`` role (a pulled, freshly wiped SITL), then the frame's defaults."""
    if FIRMWARE_DEFAULTS_ROLE not in pin.specs:
        raise ConfigError(
            f"pin '{pin.pin}' of profile '{pin.profile.name}' has no "
            f"'{FIRMWARE_DEFAULTS_ROLE}' role, so --minimal does not know what runs anyway",
            "pull a freshly wiped SITL of this firmware (sim_vehicle.py -w …; paramdiff pull "
            "tcp:127.0.0.1:5760 -o field/defaults.params), commit it and add it as role "
            f"'{FIRMWARE_DEFAULTS_ROLE}: {{file: field/defaults.params}}'",
        )

    _same_firmware(pin.source(FIRMWARE_DEFAULTS_ROLE), pin.source(pin.overlay().base))
    defaults = pin.source(FIRMWARE_DEFAULTS_ROLE).file.params.values()
    baseline = runs_anyway(defaults, pin.frame_defaults())
    return minimal(pin.derived(), baseline, FIRMWARE_DEFAULTS_ROLE)


def derived_output(pin: Pin, output: Path | None, fmt: str) -> Output:
    """Where derive writes: the profile's derived file, or -o (never another project file)."""
    profile = pin.profile
    target = profile.derived_path(pin.pin) or ""
    if output is None and pin.pin != profile.default_pin and not profile.derived_is_per_pin():
        # One committed derived file per profile: it belongs to the default pin.
        raise ConfigError(
            f"{target} is pin {profile.default_pin}'s file (the profile's default_pin)",
            f"give -o PATH (or -o -) for pin {pin.pin}, or put {{pin}} in the profile's "
            "derived path in sources.yaml",
        )
    fix = (
        derive_command(profile.name, pin.pin)
        + (f" --format {fmt}" if fmt != "params" else "")
        + (f" -o {output}" if output and str(output) != "-" else "")
    )
    default = target if fmt == "params" else None
    # -o may name the file derive writes by default: this pin's, in this format
    own = default if pin.pin == profile.default_pin or profile.derived_is_per_pin() else None
    guard = pin.project.project_files().without(own) if output is not None else None
    return output_for(pin.config.root, output, default, fix, guard)


def _same_firmware(defaults: Source, base: Source) -> None:
    """Defaults pulled off another firmware or vehicle would drop the wrong lines."""
    for key, of in (("Version", firmware_of), ("Vehicle", str.casefold)):
        a, b = defaults.file.header.get(key), base.file.header.get(key)
        if a and b and of(a) != of(b):
            raise ConfigError(
                f"{FIRMWARE_DEFAULTS_ROLE} is from {key.lower()} {a}, the base "
                f"{base.role} from {b}: its defaults are not what this firmware runs",
                "pull a freshly wiped SITL of the base's firmware and vehicle",
                file=defaults.path,
            )
