"""The SITL parameter file: the pinned base set, the overlay's selection and deltas, provenance.

``build`` decides every line from values (the base source, the overlay, the classifier,
the metadata, the frame defaults); ``render.derived_file`` turns that into lines of text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from paramdiff.comparison.classify import Classifier
from paramdiff.comparison.running_vehicle import repeats_baseline
from paramdiff.comparison.sitl_layers import Layers
from paramdiff.config.sources import derive_command
from paramdiff.errors import ConfigError
from paramdiff.model.metadata import Metadata
from paramdiff.model.params import Param
from paramdiff.model.source import Source
from paramdiff.model.values import format_value
from paramdiff.overlay.file import Delta, Overlay, Rule, validate_deltas
from paramdiff.parse.param_text import WRITE_FORMATS

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> list[object]:
    """SERVO2 before SERVO10, as a person reads them."""
    return [int(t) if t.isdigit() else t for t in _DIGITS.split(name)]


DERIVE_FORMATS = WRITE_FORMATS


class Line(NamedTuple):
    """One parameter of the derived file: value, section, the shipped row and the delta."""

    name: str
    value: float
    section: str
    shipped: Param | None
    delta: Delta | None = None


@dataclass(slots=True)
class Derived:
    """The derived parameter file of a profile's pin, with where every value came from."""

    profile: str
    pin: str
    overlay: Overlay
    base: Source
    inputs: list[Source]
    lines: list[Line]
    excluded: dict[Rule, list[Param]] = field(default_factory=dict)
    frame: str | None = None
    frame_files: list[str] = field(default_factory=list)
    frame_outputs: list[str] = field(default_factory=list)  # "SERVO1_FUNCTION 73"
    vehicle: str | None = None  # sim_vehicle.py -v
    target: str = ""
    # Every locked input of the pin with what it is used for (the header's provenance).
    locked: list[tuple[str, Source]] = field(default_factory=list)
    # --minimal: (the firmware-defaults role, how many lines only restated what runs anyway)
    minimal_of: tuple[str, int] | None = None
    # The first declared launch check verifies: (command, files it loads in order); None
    # when the profile declares launches and none passes (set by Pin.derived).
    load_with: tuple[str, list[str]] | None = None
    load_model: str | None = None  # the Gazebo model that launch runs (its label)
    launches_declared: bool = False

    @property
    def regenerate(self) -> str:
        return derive_command(self.profile, self.pin)

    def params(self) -> dict[str, float]:
        return {ln.name: ln.value for ln in self.lines}


class Target(NamedTuple):
    """What the profile says about the derived file: where it goes, what it records, how
    SITL loads it."""

    profile: str
    pin: str
    path: str
    inputs: tuple[Source, ...] = ()  # the calibration list and metadata (the report's sources)
    # (use, source) for every other locked role of the pin: compared, checked, frame defaults
    locked: tuple[tuple[str, Source], ...] = ()
    vehicle: str | None = None  # sim_vehicle.py -v
    frame: str | None = None  # sim_vehicle.py -f


def build(
    base: Source,
    overlay: Overlay,
    classifier: Classifier,
    metadata: Metadata | None,
    frame_defaults: Layers | None,
    target: Target,
) -> Derived:
    """Every line of the derived file: ``base`` filtered and changed by ``overlay``.

    ``frame_defaults`` is what sim_vehicle.py loads before the file (None when the profile
    pins no frame defaults): its output functions are named in the header.
    """
    if base.file.format == "sdf":
        raise ConfigError(
            f"overlay base '{overlay.base}' is a model, not a parameter set",
            "use a parameter role such as hardware",
            file=overlay.file,
            line=1,
        )

    def category(name: str) -> str:
        return classifier.classify(name)[0]

    validate_deltas(overlay, base.file.params, metadata, base.commit or "", category)
    lines, excluded = _lines(base, overlay, category)
    return Derived(
        profile=target.profile,
        pin=target.pin,
        overlay=overlay,
        base=base,
        inputs=[base, *target.inputs],
        lines=lines,
        excluded=excluded,
        frame=target.frame,
        frame_files=[s.file.file.rsplit("/", 1)[-1] for s in frame_defaults.layers]
        if frame_defaults
        else [],
        frame_outputs=_output_functions(frame_defaults) if frame_defaults else [],
        vehicle=target.vehicle,
        target=target.path,
        locked=[("values", base), *target.locked],
    )


def _lines(
    base: Source, overlay: Overlay, category: Callable[[str], str]
) -> tuple[list[Line], dict[Rule, list[Param]]]:
    """The carried lines in section order, and what each exclude rule left out."""
    lines: list[Line] = []
    excluded: dict[Rule, list[Param]] = {}
    for name, p in base.file.params.items():
        rule = overlay.excluded_by(name, category(name))
        if rule is not None:
            excluded.setdefault(rule, []).append(p)
            continue
        d = overlay.delta(name)
        lines.append(Line(name, d.value if d else p.value, overlay.section_of(name), p, d))
    for d in overlay.deltas:
        if d.param not in base.file.params:
            lines.append(Line(d.param, d.value, overlay.section_of(d.param), None, d))
    order = {s.name: i for i, s in enumerate(overlay.sections)}
    lines.sort(key=lambda ln: (order.get(ln.section, len(order)), natural_key(ln.name)))
    return lines, excluded


def minimal(d: Derived, baseline: Mapping[str, float], defaults_role: str) -> Derived:
    """``d`` without the lines that only restate what the launch runs anyway (``baseline``:
    the firmware's defaults with the frame's on top); a delta stays, since it carries a
    reason (SITL_Models PR#147 asks for such minimal files)."""
    kept = [
        ln
        for ln in d.lines
        if ln.delta is not None or not repeats_baseline(ln.name, ln.value, baseline)
    ]
    return replace(d, lines=kept, minimal_of=(defaults_role, len(d.lines) - len(kept)))


def _output_functions(frame_defaults: Layers) -> list[str]:
    """The frame defaults' SERVOn_FUNCTION values, e.g. "SERVO1_FUNCTION 73"."""
    eff = frame_defaults.effective
    return [
        f"{n} {format_value(eff[n].param.value)}"
        for n in sorted(eff, key=natural_key)
        if n.startswith("SERVO") and n.endswith("_FUNCTION")
    ]
