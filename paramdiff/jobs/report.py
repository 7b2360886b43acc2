"""`paramdiff report`: what the pin's markdown report shows, and where it goes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from paramdiff.config.sources import svg_path
from paramdiff.derive.record import load_record
from paramdiff.digests import sha256_of
from paramdiff.errors import ConfigError, UsageError
from paramdiff.jobs.compare import THREE_WAY
from paramdiff.jobs.fidelity import acknowledged_actuators, model_fidelity, pinned_fidelity
from paramdiff.parse.named_files import read_local
from paramdiff.parse.sdf_paths import local_resolver
from paramdiff.pin import Pin
from paramdiff.render.report_inputs import ReportInputs
from paramdiff.render.report_markdown import render_report
from paramdiff.render.report_model import render_picture, svg_output
from paramdiff.render.sinks import Output, Outputs, join_lines, output_for
from paramdiff.simulation.thrust_curve import ThrustSummary, calibration_findings
from paramdiff.simulation.thrusters import THROTTLE_LEFT, THROTTLE_RIGHT

if TYPE_CHECKING:
    from paramdiff.render.report_inputs import ReportInputs


def report_files(pin: Pin, output: Path | None = None, model_file: Path | None = None) -> Outputs:
    """`paramdiff report`: the markdown report's lines and where they go (``output``: -o;
    ``-`` is stdout), then its top view's, beside it (none on stdout). ``model_file`` (a
    team's own Gazebo model, ``report_inputs``) needs ``output``: the profile's report is the
    pinned model's. Both places are refused before either is written or the report made."""
    if model_file is not None and output is None:
        raise UsageError(
            "--model writes a report of its own",
            "give -o PATH (or -o -); the profile's report shows the pinned sitl_models",
        )
    target = report_output(pin, output)
    picture = svg_output(target) if target.path is not None else None  # beside the report
    inputs = report_inputs(pin, model_file)
    files: list[tuple[Iterable[str], Output | None]] = [(render_report(inputs), target)]
    if picture is not None:
        files.append((_picture(inputs), picture))
    return Outputs(files)


def _picture(inputs: ReportInputs) -> Iterator[str]:
    """The top view's lines, drawn when written: after the report is."""
    yield from render_picture(inputs)


def report_inputs(pin: Pin, model_file: Path | None = None) -> ReportInputs:
    """Everything the report renders: the three-way table, the derived file, the model's
    channels and findings, what SITL runs, the metadata and the launch results. With
    ``model_file`` (a team's own Gazebo model), its channels and actuators instead of the
    pinned sitl_models' (no acknowledgement applies: those are of the pinned bytes)."""

    missing = [role for role in THREE_WAY if role not in pin.specs]
    if missing:  # the report is the three-way comparison: hardware, sitl and sitl_models
        raise ConfigError(
            f"profile '{pin.profile.name}' pin {pin.pin} has no {' or '.join(missing)} role, "
            f"and the report compares {', '.join(THREE_WAY)}",
            f"add the role{'s' if len(missing) > 1 else ''} to the pin in sources.yaml and "
            "run paramdiff fetch (derive works without it)",
            file="sources.yaml",
        )
    if model_file is None:
        model = pin.pinned_check("sitl_models")
        actuators = pinned_fidelity(pin, "sitl_models")
        acknowledged, label = acknowledged_actuators(pin, "sitl_models"), None
    else:
        data, label = read_local(model_file), model_file.as_posix()
        model = pin.check_model(data, label, local_resolver())
        actuators = model_fidelity(pin, data, label, model.channels, sha256_of(data))
        acknowledged = set()
    record = load_record(pin.config.root, pin.profile.name, pin.pin)
    summary = pin.thrust_summary()
    # the digest only where a record is compared with it (the file is rendered for it)
    digest = sha256_of(join_lines(pin.derived_lines()).encode()) if record else ""
    return ReportInputs(
        pin.profile,
        pin.pin,
        pin.compare(list(THREE_WAY)),
        pin.derived(),
        model.channels,
        model.findings,
        pin.sitl_run(),
        model.geometry,
        pin.metadata(),
        pin.metadata_by_firmware(),
        pin.launch_results(),
        actuators,
        acknowledged,
        model=label,
        record=record,
        derived_sha256=digest,
        thrust=summary,
        thrust_findings=thrust_findings(pin, summary),
        derived_model=pin.derived_model(),
    )


def thrust_findings(pin: Pin, summary: ThrustSummary | None) -> list[str]:
    """The thruster data against the derived parameters, at each skid-steer output."""
    if summary is None:
        return []
    params = pin.derived().params()
    outputs = [
        n
        for n in range(1, 33)
        if params.get(f"SERVO{n}_FUNCTION") in (THROTTLE_LEFT, THROTTLE_RIGHT)
    ]
    return calibration_findings(summary, params, outputs)


def report_output(pin: Pin, output: Path | None) -> Output:
    """Where report writes: the profile's report path, or -o (never another project file)."""
    if output is not None and output.suffix.lower() == ".svg":
        # The top view is written beside the report as <stem>.svg; -o x.svg would put
        # markdown in x.svg and the picture in x.svg.svg.
        raise UsageError(
            f"-o {output} names the top view; -o names the markdown report",
            f"give -o {output.with_suffix('.md')} (the top view goes beside it as {output.name})",
        )
    fix = f"paramdiff report --profile {pin.profile.name} --pin {pin.pin}"
    default = pin.profile.report_path(pin.pin)
    own = (default, svg_path(default)) if default else ()
    guard = pin.project.project_files().without(*own) if output is not None else None
    return output_for(pin.config.root, output, default, fix, guard)
