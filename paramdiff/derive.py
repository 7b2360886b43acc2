"""The SITL parameter file: the pinned base set, the overlay's selection and deltas, provenance.

``build`` decides every line; ``render`` turns that into lines of text. The sink
(write, --check, stdout) is chosen by the caller, so all of them see the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from .errors import ConfigError
from .formats import Param, format_value, parse_params
from .overlays import Delta, Overlay, Rule, load_overlay, validate_deltas
from .project import CALIBRATION_ROLE, PinContext
from .sinks import join_lines
from .table import Source


def natural_key(name: str) -> list[object]:
    """SERVO2 before SERVO10, as a person reads them."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


DERIVE_FORMATS = ("params", "mp", "qgc")  # also in render.params


@dataclass(frozen=True)
class Line:
    name: str
    value: float
    section: str
    shipped: Param | None
    delta: Delta | None = None


@dataclass
class Derived:
    profile: str
    pin: str
    overlay: Overlay
    base: Source
    inputs: list[Source]
    lines: list[Line]
    excluded: dict[Rule, list[Param]] = field(default_factory=dict)
    frame: str | None = None
    frame_files: list[str] = field(default_factory=list)
    frame_outputs: list[str] = field(default_factory=list)  # e.g. "SERVO1_FUNCTION 73"
    vehicle: str | None = None  # sim_vehicle.py -v
    target: str = ""

    @property
    def regenerate(self) -> str:
        return f"paramdiff derive --profile {self.profile} --pin {self.pin}"

    def params(self) -> dict[str, float]:
        return {ln.name: ln.value for ln in self.lines}

    @cached_property
    def source(self) -> Source:
        """The derived file read back as ArduPilot reads it, with its own line numbers.

        Rendered and parsed once; validate, layers and the report all use this one.
        """
        from .render.params import read_provenance

        lines = list(render(self))
        parsed = parse_params(join_lines(lines).encode(), self.target, "params")
        # Each row also says where its value came from (the file's provenance comments).
        where = read_provenance(lines)
        parsed.params = {
            n: replace(p, note=f"from {where[n]}") if n in where else p
            for n, p in parsed.params.items()
        }
        return Source(role=self.target, file=parsed)


def build(ctx: PinContext) -> Derived:
    profile = ctx.profile
    if not profile.overlay or not profile.derived:
        raise ConfigError(
            f"profile '{profile.name}' declares no overlay/derived path",
            "add 'overlay:' and 'derived:' to the profile in sources.yaml",
        )
    overlay = load_overlay(ctx.config.root, profile.overlay)
    base = ctx.source(overlay.base)
    if base.file.format == "sdf":
        raise ConfigError(
            f"overlay base '{overlay.base}' is a model, not a parameter set",
            "use a parameter role such as hardware",
            file=overlay.file,
            line=1,
        )
    classifier = ctx.classifier()

    def category(name: str) -> str:
        return classifier.classify(name)[0]

    validate_deltas(overlay, base.file.params, ctx.metadata, base.commit or "", category)
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
    inputs = [base]
    if CALIBRATION_ROLE in ctx.specs:
        inputs.append(ctx.source_meta(CALIBRATION_ROLE))
    for role in ctx.metadata_roles():
        inputs.append(ctx.source_meta(role))
    frame_files: list[str] = []
    frame_outputs: list[str] = []
    if profile.sitl_frame:
        from .layers import frame_sources, stack

        frame, sources = frame_sources(ctx, profile.sitl_frame)
        frame_files = [s.file.file.rsplit("/", 1)[-1] for s in sources]
        defaults = stack(sources, frame, profile.frames[frame]).effective
        frame_outputs = [
            f"{n} {format_value(defaults[n].param.value)}"
            for n in sorted(defaults, key=natural_key)
            if n.startswith("SERVO") and n.endswith("_FUNCTION")
        ]
    return Derived(
        profile=profile.name,
        pin=ctx.pin,
        overlay=overlay,
        base=base,
        inputs=inputs,
        lines=lines,
        excluded=excluded,
        frame=profile.sitl_frame,
        frame_files=frame_files,
        frame_outputs=frame_outputs,
        vehicle=profile.sitl_vehicle,
        target=profile.derived_path(ctx.pin) or "",
    )


def render(d: Derived, fmt: str = "params") -> Iterator[str]:
    """The derived file's lines in ``fmt``: params (sim_vehicle/MAVProxy), mp or qgc.

    Rendered by ``render.params``; a params file is read back by every real loader before a
    line of it is used, so no reason text can make one of them see another value.
    """
    from .render.params import render_derived, verify_loaders

    lines = render_derived(d, fmt)
    if fmt != "qgc":  # QGC's own format is for QGC only (and carries types)
        verify_loaders(lines, d, "," if fmt == "mp" else " ")
    yield from lines
