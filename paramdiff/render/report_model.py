"""The report's model section: each control channel of the sitl_models Gazebo model against
what SITL runs (the mapping table, the roles read from its geometry, the mismatches), and the
top-view picture written beside the report."""

from __future__ import annotations

from collections.abc import Iterator

from paramdiff.config.sources import svg_path
from paramdiff.errors import UsageError
from paramdiff.files import project_path
from paramdiff.model.values import format_value
from paramdiff.outputs import checked_output
from paramdiff.parse.sdf import Channel
from paramdiff.render.report_inputs import ReportInputs
from paramdiff.render.sinks import Output
from paramdiff.render.svg import render_svg
from paramdiff.render.texttable import markdown_table
from paramdiff.simulation.actuators import Geometry

CHANNEL_HEADERS = [
    "channel",
    "output",
    "joint",
    "position (x, y, z m)",
    "servo range",
    "neutral PWM",
    "multiplier",
    "type",
    "runs as",
    "geometry says",
]


def svg_output(report: Output) -> Output:
    """Where the report's top view goes: beside it, same stem, same regenerating command."""
    label = svg_path(report.label)
    if report.root is not None:  # a project file: the picture must stay in the project too
        inside = project_path(report.root, label, generated=True)
        return Output(inside, label, report.fix, report.root)
    path = report.path.with_name(svg_path(report.path.name)) if report.path else None
    if path is not None and report.guard is not None:  # -o x.md: x.svg follows the same rule
        checked_output(path, report.guard)
    if path is not None and path.is_dir():
        raise UsageError(
            f"{path} is a directory, where the report's top view goes",
            "remove it, or give -o another report path",
            file=str(path),
        )
    return Output(path, label, report.fix, guard=report.guard)


def render_picture(inp: ReportInputs) -> Iterator[str]:
    """The top view (render.svg) of the model the report's channel section checks."""
    if inp.geometry is None:
        return iter(())
    model = inp.model or inp.comparison.source("sitl_models").path
    title = f"{inp.profile.name} (pin {inp.pin}): {model}"
    return render_svg(title, inp.geometry)


def channel_section(inp: ReportInputs) -> Iterator[str]:
    picture = svg_path(inp.profile.report_path(inp.pin) or "report.md").rsplit("/", 1)[-1]
    against = f"`{inp.model}`" if inp.model else "the sitl_models Gazebo model"
    yield f"## Channel mapping: derived file vs {against}"
    yield ""
    yield f"![Top view of the model's actuators]({picture})"
    yield ""
    yield (
        f"[{picture}]({picture}): top view of the model's actuators (includes merged), each "
        "with its output, the function SITL runs it as and its spin or thrust; red with the "
        "finding numbers below where something disagrees."
    )
    yield ""
    yield (
        'Per `<control channel="N">` (0-based, channel 0 = SERVO1): '
        "`cmd = multiplier * (clamp((pwm - servo_min)/(servo_max - servo_min), 0, 1) + offset)`; "
        "neutral PWM = `servo_min - offset*(servo_max - servo_min)`."
    )
    yield ""
    yield from _geometry_note(inp.geometry)
    rows = [_channel_row(inp, ch) for ch in inp.model_channels]
    yield from markdown_table(CHANNEL_HEADERS, rows)
    yield ""
    yield from _channel_findings(inp)
    yield ""


def _geometry_note(geometry: Geometry | None) -> Iterator[str]:
    if geometry is None:
        return
    yield (
        f"Roles from geometry: {geometry.frame}. Positions are the driven link's origin in the "
        "Gazebo model frame (x forward, y left, z up, metres); ArduPilot's motor tables are in "
        "its body frame FRD (x forward, y right, z down). The parameters are what SITL runs: "
        "the frame defaults, then the derived file."
    )
    yield ""
    for note in geometry.notes:
        yield f"- {note}"
    if geometry.notes:
        yield ""


def _channel_row(inp: ReportInputs, ch: Channel) -> list[str]:
    meta, n = inp.comparison.metadata, ch.output
    views = inp.geometry.views if inp.geometry else []
    view = next((v for v in views if v.actuator.channel == ch), None)
    name = f"SERVO{n}_FUNCTION"
    func = view.function if view is not None else inp.derived_params.get(name)
    runs = "—" if func is None else (meta.label(name, func) if meta else format_value(func))
    says, where = "—", "—"
    if view is not None:
        where = ", ".join(f"{c:+.3f}" for c in view.actuator.position)
        if view.expected is not None:
            says = meta.label(name, view.expected) if meta else str(view.expected)
        if view.kind == "rotor":
            says += ", spins " + ("CCW" if view.spin == 1 else "CW")
    servo_range = f"{format_value(ch.servo_min)}–{format_value(ch.servo_max)}"
    return [
        str(ch.channel),
        f"SERVO{n}",
        ch.joint,
        where,
        servo_range,
        format_value(ch.neutral_pwm),
        format_value(ch.multiplier),
        ch.type,
        runs,
        says,
    ]


def _channel_findings(inp: ReportInputs) -> Iterator[str]:
    if not inp.findings:
        yield "No mismatches: every channel agrees with what SITL runs."
        return
    yield (
        f"**{len(inp.findings)} mismatches** — with this model the derived file would "
        "not drive the vehicle as the real one is driven:"
    )
    yield ""
    for number, f in enumerate(inp.findings, 1):
        yield f"{number}. {f}{f.fix_text()}"
    yield ""
    yield (
        "The derived file keeps the shipped output mapping (it describes the real vehicle); "
        "the model is what should change, as listed per channel. "
        "`paramdiff check --model <model.sdf>` verifies a fixed model."
    )
