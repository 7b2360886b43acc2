"""What SITL actually runs: sim_vehicle.py's frame defaults, then each added file; last wins.

``sim_vehicle.py -v Rover -f rover-skid --add-param-file=X`` loads rover.parm, then
rover-skid.parm, then X (on a wiped EEPROM, ``-w``). A parameter the added files do
not set keeps the frame's default — a value nobody chose for this boat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from paramdiff.comparison.classify import Classifier
from paramdiff.model.params import Param
from paramdiff.model.source import Source
from paramdiff.model.values import same_value


@dataclass(slots=True)
class Effective:
    """A parameter's winning value across the layers, and the ones it overrode."""

    name: str
    param: Param  # the layer that won
    layer: str
    overridden: list[tuple[str, Param]] = field(default_factory=list)


@dataclass(slots=True)
class Layers:
    """Parameter files loaded in order (frame defaults first), and what wins."""

    frame: str
    layers: list[Source]
    effective: dict[str, Effective]
    frame_roles: tuple[str, ...]

    def from_frame(self) -> list[Effective]:
        """Parameters whose winning value is a frame default."""
        return [e for e in self.effective.values() if e.layer in self.frame_roles]


def stack(layers: list[Source], frame: str, frame_roles: tuple[str, ...]) -> Layers:
    effective: dict[str, Effective] = {}
    for src in layers:
        for name, p in src.file.params.items():
            prev = effective.get(name)
            eff = Effective(name, p, src.role)
            if prev is not None:
                eff.overridden = [*prev.overridden, (prev.layer, prev.param)]
            effective[name] = eff
    return Layers(frame, layers, dict(sorted(effective.items())), frame_roles)


class Flag(NamedTuple):
    """A frame default SITL runs where the hardware has another value."""

    effective: Effective
    hardware: Param
    category: str

    def __str__(self) -> str:
        p = self.effective.param
        return (
            f"{p.name} runs {p.text} from {p.file.rsplit('/', 1)[-1]}:{p.line} (frame default) "
            f"but the hardware sets {self.hardware.text} ({self.hardware.origin})"
        )


def unchosen(
    layers: Layers,
    hardware: dict[str, Param],
    classifier: Classifier,
    excluded_categories: frozenset[str],
) -> tuple[list[Flag], list[Flag]]:
    """(flags, accepted): frame defaults that differ from the hardware, split by whether the
    overlay left that category out on purpose."""
    flags: list[Flag] = []
    accepted: list[Flag] = []
    for eff in layers.from_frame():
        hw = hardware.get(eff.name)
        if hw is None or same_value(hw.value, eff.param.value):
            continue
        category = classifier.classify(eff.name)[0]
        item = Flag(eff, hw, category)
        (accepted if category in excluded_categories else flags).append(item)
    return flags, accepted


@dataclass(slots=True)
class SitlRun:
    """The profile's SITL frame stacked under the derived file, and what survives unchosen."""

    layers: Layers
    flags: list[Flag]  # frame defaults in carried categories that differ from the hardware
    accepted: list[Flag]  # the same, in categories the overlay leaves out on purpose


def sitl_run(
    frame_defaults: Layers,
    derived: Source,
    hardware: dict[str, Param],
    classifier: Classifier,
    excluded_categories: frozenset[str],
) -> SitlRun:
    """``derived`` (as read back) loaded on top of the frame's defaults, as sim_vehicle.py
    does, and the frame defaults that survive although the hardware sets another value."""
    layers = stack(
        [*frame_defaults.layers, derived], frame_defaults.frame, frame_defaults.frame_roles
    )
    flags, accepted = unchosen(layers, hardware, classifier, excluded_categories)
    return SitlRun(layers, flags, accepted)
