"""What a running vehicle holds against what its launch should run, and what the firmware
runs anyway.

ArduPilot keeps parameters in storage (SITL: eeprom.bin) and a stored value wins over every
defaults file (AP_Param::load_defaults_file sets only what storage does not hold; ardupilot
issue #6225), so "what SITL runs" is a claim until it is read back. A pulled set from a freshly
wiped SITL of the same firmware is exactly the firmware's (and the frame's) defaults: the
baseline a minimal derived file need not repeat.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from typing import NamedTuple

from paramdiff.comparison.side_by_side import Comparison
from paramdiff.comparison.sitl_layers import Effective, Layers
from paramdiff.model.params import Param
from paramdiff.model.values import format_value, same_value

STORED_SURVIVED = (
    "a stored value survived: SITL keeps its parameters (eeprom.bin) over every defaults "
    "file unless the launch wipes them — relaunch with -w (sim_vehicle.py -w, or the binary's "
    "-w / --wipe)"
)
SET_AFTER_BOOT = (
    "the launch wiped storage, so something set it after boot: a ground station, a Lua "
    "script, or the firmware itself — check what connected before this pull"
)
NOT_IN_FIRMWARE = (
    "the running firmware has no such parameter, so its loader skipped the line: another "
    "firmware version's name, or one that exists only after its *_ENABLE is set and the "
    "vehicle rebooted"
)


class Mismatch(NamedTuple):
    """A parameter a layer sets whose running value is another (None: the vehicle has none)."""

    expected: Effective
    running: float | None
    cause: str

    @property
    def name(self) -> str:
        return self.expected.name

    @property
    def runs(self) -> str:
        return "(absent)" if self.running is None else format_value(self.running)

    @property
    def set_by(self) -> str:
        p = self.expected.param
        return f"{self.expected.layer} ({p.file.rsplit('/', 1)[-1]}:{p.line})"

    def row(self) -> list[str]:
        value = format_value(self.expected.param.value)
        return [self.name, self.runs, value, self.set_by, self.cause]

    def __str__(self) -> str:
        value = format_value(self.expected.param.value)
        return f"{self.name} runs {self.runs}, {self.set_by} sets {value}"


class Verification(NamedTuple):
    """Every parameter a layer sets, checked against the running vehicle."""

    layers: Layers
    mismatches: list[Mismatch]
    matching: int  # set by a layer and running that value
    unset: int  # running, set by no layer: the firmware's own defaults (counted, not listed)
    # running, set by no layer, and a name the pin's firmware metadata does not know (a Lua
    # script's, or another firmware's): not a firmware default, so counted apart
    unknown: int = 0

    @property
    def ok(self) -> bool:
        return not self.mismatches


def verify_running(
    layers: Layers,
    running: Mapping[str, float],
    wiped: bool,
    known: Container[str] | None = None,
) -> Verification:
    """``running`` (name -> value, as pulled) against the winning value of every layer.
    ``wiped``: whether the launch wiped stored parameters (-w), which decides the likely
    cause of a difference. ``known``: the names the firmware's metadata defines; a running
    name no layer sets and outside it is counted as unknown, not as a firmware default."""
    mismatches = []
    for name, eff in layers.effective.items():
        value = running.get(name)
        if value is None:
            mismatches.append(Mismatch(eff, None, NOT_IN_FIRMWARE))
        elif not same_value(value, eff.param.value):
            mismatches.append(Mismatch(eff, value, SET_AFTER_BOOT if wiped else STORED_SURVIVED))
    matching = len(layers.effective) - len(mismatches)
    rest = [name for name in running if name not in layers.effective]
    unknown = 0 if known is None else sum(1 for name in rest if name not in known)
    return Verification(layers, mismatches, matching, len(rest) - unknown, unknown)


def runs_anyway(
    firmware_defaults: Iterable[Param], frame_defaults: Layers | None
) -> dict[str, float]:
    """What a launch runs before the derived file: the firmware's defaults (a pulled wiped
    SITL), then the frame's defaults files on top."""
    values = {p.name: p.value for p in firmware_defaults}
    if frame_defaults is not None:
        values.update({n: e.param.value for n, e in frame_defaults.effective.items()})
    return values


def repeats_baseline(name: str, value: float, baseline: Mapping[str, float]) -> bool:
    """Whether a line only restates what runs anyway (so ``derive --minimal`` drops it)."""
    return name in baseline and same_value(baseline[name], value)


def changed_from_defaults(
    defaults: Mapping[str, float], files: Iterable[Mapping[str, float]]
) -> list[str]:
    """Names any of ``files`` sets to something other than the firmware's default, or that
    the firmware does not have: what the files change (``diff --against-defaults``)."""
    names: set[str] = set()
    for values in files:
        for name, value in values.items():
            if name not in defaults or not same_value(defaults[name], value):
                names.add(name)
    return sorted(names)


def changes_from_defaults(comp: Comparison, names: Iterable[str]) -> list[str]:
    """Of ``names`` (rows of ``comp``, whose first source is the firmware's defaults), those
    another source changes from the default (``diff --against-defaults``)."""
    defaults, *files = comp.sources
    changed = set(changed_from_defaults(defaults.file.values(), [s.file.values() for s in files]))
    return [n for n in names if n in changed]
