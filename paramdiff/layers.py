"""What SITL actually runs: sim_vehicle.py's frame defaults, then each added file; last wins.

``sim_vehicle.py -v Rover -f rover-skid --add-param-file=X`` loads rover.parm, then
rover-skid.parm, then X (on a wiped EEPROM, ``-w``). A parameter the added files do
not set keeps the frame's default — a value nobody chose for this boat.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import ConfigError
from .formats import Param, format_value, same_value
from .project import PinContext
from .table import Source

if TYPE_CHECKING:
    from .derive import Derived


@dataclass
class Effective:
    name: str
    param: Param  # the layer that won
    layer: str
    overridden: list[tuple[str, Param]] = field(default_factory=list)


@dataclass
class Layers:
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


def frame_sources(ctx: PinContext, frame: str | None) -> tuple[str, list[Source]]:
    frame = frame or ctx.profile.sitl_frame
    if not ctx.profile.frames:
        raise ConfigError(
            f"profile '{ctx.profile.name}' pins no sim_vehicle.py frame defaults, so there are "
            "no layers to show",
            "pin the frame's files (ArduPilot's Tools/autotest/default_params/*.parm) as roles "
            "and list them under 'frames:' in sources.yaml",
        )
    if not frame or frame not in ctx.profile.frames:
        raise ConfigError(
            f"profile '{ctx.profile.name}' has no frame '{frame}'",
            f"use one of: {', '.join(ctx.profile.frames) or '(none declared)'}, or declare "
            "frames in sources.yaml",
        )
    return frame, [ctx.source(r) for r in ctx.profile.frames[frame]]


@dataclass(frozen=True)
class Flag:
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
    ctx: PinContext, layers: Layers, excluded_categories: set[str]
) -> tuple[list[Flag], list[Flag]]:
    """(flags, accepted): frame defaults that differ from the hardware, split by whether the
    overlay left that category out on purpose."""
    hardware = ctx.source("hardware").file.params
    classifier = ctx.classifier()
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


def excluded_categories(derived: Derived) -> set[str]:
    return {r.category for r in derived.overlay.exclude if r.category}


def sitl_layers(ctx: PinContext, derived: Derived, frame: str | None = None) -> Layers:
    frame, frame_srcs = frame_sources(ctx, frame)
    return stack([*frame_srcs, derived.source], frame, ctx.profile.frames[frame])


@dataclass
class SitlRun:
    """The profile's SITL frame stacked under the derived file, and what survives unchosen."""

    layers: Layers
    flags: list[Flag]  # frame defaults in carried categories that differ from the hardware
    accepted: list[Flag]  # the same, in categories the overlay leaves out on purpose


def sitl_run(ctx: PinContext, derived: Derived) -> SitlRun | None:
    if not ctx.profile.sitl_frame:
        return None
    layers = sitl_layers(ctx, derived)
    flags, accepted = unchosen(ctx, layers, excluded_categories(derived))
    return SitlRun(layers, flags, accepted)


def layer_md(
    layers: Layers, derived: Derived, flags: list[Flag], accepted: list[Flag]
) -> Iterator[str]:
    order = " → ".join(s.file.file.rsplit("/", 1)[-1] for s in layers.layers)
    vehicle = derived.vehicle or "<vehicle>"
    yield (
        f"`sim_vehicle.py -v {vehicle} -f {layers.frame} --add-param-file={derived.target}` loads "
    )
    yield f"{order}; the last file wins."
    yield ""
    survivors = layers.from_frame()
    yield (
        f"{len(survivors)} parameters keep a frame default because the derived file does not "
        f"set them; {len(flags)} of those differ from the hardware in a category the derived "
        "file carries (a value nobody chose):"
    )
    yield ""
    for f in flags:
        yield f"- **{f}**"
    if not flags:
        yield "- none"
    yield ""
    if accepted:
        yield (
            f"{len(accepted)} more differ from the hardware in categories left out on purpose "
            "(SITL's own values are the right ones there): "
            + ", ".join(f"`{f.effective.name}` {f.effective.param.text}" for f in accepted)
        )
        yield ""
    overridden = [
        e for e in layers.effective.values() if e.overridden and e.layer not in layers.frame_roles
    ]
    if overridden:
        yield (
            f"The derived file overrides {len(overridden)} frame defaults, e.g. "
            + ", ".join(
                f"`{e.name}` {e.overridden[-1][1].text} → {e.param.text}" for e in overridden[:6]
            )
            + "."
        )


def render_layers(layers: Layers, flags: list[Flag]) -> Iterator[str]:
    from tabulate import tabulate

    flagged = {f.effective.name for f in flags}
    rows = []
    for e in layers.effective.values():
        over = "; ".join(
            f"{p.text} @ {p.file.rsplit('/', 1)[-1]}:{p.line}" for _, p in e.overridden
        )
        rows.append(
            [
                e.name,
                format_value(e.param.value),
                f"{e.param.file.rsplit('/', 1)[-1]}:{e.param.line}"
                + (f" ({e.param.note})" if e.param.note else ""),
                over,
                "UNCHOSEN" if e.name in flagged else "",
            ]
        )
    yield f"frame {layers.frame}: " + " → ".join(s.file.file for s in layers.layers)
    yield ""
    # Values are already written as ArduPilot stores them (format_value); tabulate's number
    # parsing would re-format them (1043938 -> 1.04394e+06), so it is off.
    yield from tabulate(
        rows,
        headers=["name", "value", "set by", "overrode", "flag"],
        tablefmt="simple",
        disable_numparse=True,
        colalign=("left", "right", "left", "left", "left"),
    ).splitlines()
    yield ""
    yield f"{len(flags)} frame default(s) differ from the hardware and are not set by a later file"
    for f in flags:
        yield f"  {f}"
