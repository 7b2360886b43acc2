"""The SITL parameter file: the pinned base set, the overlay's selection and deltas, provenance.

``build`` decides every line; ``render`` turns that into lines of text. The sink
(write, --check, stdout) is chosen by the caller, so all of them see the same bytes.
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from .errors import ConfigError
from .formats import Param, format_value, parse_params, qgc_type
from .overlays import Delta, Overlay, Rule, load_overlay, validate_deltas
from .project import CALIBRATION_ROLE, METADATA_FORMAT, PinContext
from .sinks import join_lines
from .table import Source


def natural_key(name: str) -> list[object]:
    """SERVO2 before SERVO10, as a person reads them."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


DERIVE_FORMATS = ("params", "mp", "qgc")


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
    # Every locked input of the pin with what it is used for, for the header's provenance.
    locked: list[tuple[str, Source]] = field(default_factory=list)

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
        text = join_lines(render(self)).encode()
        return Source(role=self.target, file=parse_params(text, self.target, "params"))


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
        locked=locked_inputs(ctx, base),
    )


def locked_inputs(ctx: PinContext, base: Source) -> list[tuple[str, Source]]:
    """(use, source) for every role of the pin, the base first: what gave the values and
    what the file was only compared or checked against."""
    from .sources import PARAM_FORMATS

    profile = ctx.profile
    frames_of = {r: [f for f, roles in profile.frames.items() if r in roles] for r in ctx.specs}
    out: list[tuple[str, Source]] = [("values", base)]
    for role, spec in ctx.specs.items():
        if role == base.role:
            continue
        if spec.format == METADATA_FORMAT:
            use = "metadata"
        elif role == CALIBRATION_ROLE:
            use = "categories"
        elif frames_of[role]:
            use = f"frame defaults, {' and '.join(frames_of[role])}"
        elif role in profile.target_models:
            use = "checked"
        else:
            use = "compared"
        parsed = spec.format in PARAM_FORMATS
        out.append((use, ctx.source(role) if parsed else ctx.source_meta(role)))
    return out


def _header(d: Derived, fmt: str) -> Iterator[str]:
    yield f"{d.target.rsplit('/', 1)[-1]} — GENERATED by paramdiff. Do not edit by hand."
    yield f"Regenerate: {d.regenerate}" + (f" --format {fmt}" if fmt != "params" else "")
    yield ""
    yield f"Profile {d.profile}, pin {d.pin}; every input as locked in sources.lock:"
    for use, s in d.locked or [("values", i) for i in d.inputs]:
        version = f"; version {s.version}" if s.version else ""
        yield f"  {s.role} ({use}): {s.repo}{version}"
        yield f"    {s.path}"
        yield f"    commit {s.commit}"
        yield f"    sha256 {s.sha256}"
        for inc in s.includes:
            yield f"    %include {inc.path}"
            yield f"      sha256 {inc.sha256}"
    yield f"  overlay: {d.overlay.file}"
    yield f"    sha256 {d.overlay.sha256}"
    yield ""
    yield f"Every value is {d.base.role}'s, from the line named as [{d.base.role}:LINE] in"
    yield f"{d.base.path}"
    if d.base.file.includes_used():
        yield f"(or [{d.base.role}:FILE:LINE] in a file it %includes, FILE relative to it),"
    yield "except lines marked DELTA, whose reasons are in the overlay."
    if d.excluded:
        left = ", ".join(f"{r.label} ({len(ps)})" for r, ps in d.excluded.items())
        yield f"Left out on purpose: {left}; see the report."
    yield ""
    if d.vehicle is None:
        return
    yield "Load it with:"
    frame = f" -f {d.frame}" if d.frame else ""
    yield f"  sim_vehicle.py -v {d.vehicle}{frame} --add-param-file={d.target}"
    if d.frame:
        yield f"The frame's defaults load first ({' then '.join(d.frame_files)})."
        if d.frame_outputs:
            yield f"They set {' / '.join(d.frame_outputs)}."
        yield "The last file loaded wins, so this file sets every output parameter explicitly."
    else:
        yield "sim_vehicle.py loads its own frame defaults first; they are not pinned in"
        yield "sources.yaml, so `paramdiff layers` cannot say which of them survive."
    yield "Use -w to wipe stored parameters."


# ArduPilot reads a defaults file with fgets into char line[100], size 99
# (AP_Param::read_param_defaults_file, libraries/AP_Param/AP_Param.cpp): a line longer than
# 98 bytes is cut and its rest parsed as a line of its own, no longer behind its '#'.
HEADER_LINE_MAX = 98


def _comment(text: str) -> Iterator[str]:
    """``# text``, wrapped (continuations indented two more) so no line exceeds 98 bytes."""
    line = f"# {text}".rstrip()
    if len(line.encode()) <= HEADER_LINE_MAX:
        yield line
        return
    indent = "# " + " " * (len(text) - len(text.lstrip()) + 2)
    width = HEADER_LINE_MAX
    while True:
        lines = textwrap.wrap(
            line,
            width=width,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=True,
        )
        if all(len(w.encode()) <= HEADER_LINE_MAX for w in lines):
            yield from lines
            return
        width -= 2  # multi-byte characters (an em dash is 3 bytes): leave more room


def _where(ln: Line, base: Source) -> str:
    """LINE in the base file, FILE:LINE (relative to it) in a file it includes."""
    # Every line without a delta comes from the base set (build() guarantees it).
    assert ln.shipped is not None
    if ln.shipped.file == base.file.file:
        return str(ln.shipped.line)
    rel = posixpath.relpath(ln.shipped.file, posixpath.dirname(base.file.file) or ".")
    return f"{rel}:{ln.shipped.line}"


def render(d: Derived, fmt: str = "params") -> Iterator[str]:
    """The derived file's lines in ``fmt``: params (sim_vehicle/MAVProxy), mp or qgc."""
    if fmt not in DERIVE_FORMATS:
        raise ConfigError(
            f"unknown derive format '{fmt}'", f"use one of {', '.join(DERIVE_FORMATS)}"
        )
    if fmt == "qgc":
        yield "# Onboard parameters for Vehicle 1"
        for text in _header(d, fmt):
            yield from _comment(text)
        yield "#"
        yield "# Vehicle-Id Component-Id Name Value Type"
        for ln in d.lines:
            p = ln.shipped or Param(ln.name, ln.value, "", "", 0)
            yield f"1\t1\t{ln.name}\t{format_value(ln.value)}\t{qgc_type(p)}"
        return
    for text in _header(d, fmt):
        yield from _comment(text)
    section = None
    for ln in d.lines:
        if ln.section != section:
            section = ln.section
            yield ""
            yield f"# --- {section} ---"
        if ln.delta is not None:
            shipped = (
                f"shipped {ln.shipped.text} "
                f"({ln.shipped.file.rsplit('/', 1)[-1]}:{ln.shipped.line})"
                if ln.shipped
                else "not set by the shipped file"
            )
            yield f"# DELTA: {shipped} — {ln.delta.reason}"
        value = format_value(ln.value)
        if fmt == "mp":
            yield f"{ln.name},{value}"
            continue
        trace = f"overlay:{ln.delta.line}" if ln.delta else f"{d.base.role}:{_where(ln, d.base)}"
        yield f"{ln.name:<16} {value:<10} # [{trace}]"
