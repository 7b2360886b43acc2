"""`check`'s rules for a pin's committed outputs (run.py checks the lock first): each a small
function that adds findings, with the command that fixes them, to a ``CheckOutcome``;
``check_outputs`` runs them in order."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from paramdiff.check.fidelity_rule import actuator_outcome, loop_rate_line
from paramdiff.check.outcome import CheckOutcome
from paramdiff.config.sources import svg_path
from paramdiff.derive.derived import Derived
from paramdiff.errors import InputError, StaleOverlayError
from paramdiff.files import TEXT_LIMIT, first_difference, project_path, read_regular
from paramdiff.jobs.param_validation import ERROR, validate
from paramdiff.jobs.report import report_inputs
from paramdiff.model.values import float32
from paramdiff.parse.loaders import LOADERS, disagreements
from paramdiff.parse.named_files import read_local
from paramdiff.parse.param_text import parse_params
from paramdiff.parse.sdf_paths import Resolver, local_resolver
from paramdiff.pin import Pin
from paramdiff.render.derived_file import LINE_MAX
from paramdiff.render.report_markdown import render_report
from paramdiff.render.report_model import render_picture
from paramdiff.render.sinks import check_file, join_lines
from paramdiff.simulation.actuator_fidelity import is_actuator_acknowledgement
from paramdiff.simulation.channels import SOURCES
from paramdiff.simulation.launch_check import adhoc, stale_acknowledgements

if TYPE_CHECKING:
    from paramdiff.simulation.launch_check import LaunchResult


def check_outputs(
    ctx: Pin,
    out: CheckOutcome,
    own_derived: bool,
    own_report: bool,
    asked: bool,
    models: list[Path],
    launch: str | None,
    world: Path | None,
) -> None:
    """The pin's committed outputs through every rule: the overlay, the derived file (up to
    date, loaded the same by every loader, valid, no unchosen frame default, models,
    actuators, launches) and the report, findings added to ``out``."""
    try:
        derived = ctx.derived()
    except StaleOverlayError as exc:
        out.fail(f"{exc.where}: {exc.what}", exc.fix or "review the overlay", exc.file, exc.line)
        return
    out.passed.append(f"overlay {derived.overlay.file} is valid and not stale")
    if own_derived:
        _derived_up_to_date(ctx, derived, out)
        _derived_model_up_to_date(ctx, derived, out)
    elif asked:
        out.warnings.append(
            f"{derived.target} is pin {ctx.profile.default_pin}'s file (default_pin), so it is "
            f"not checked for pin {ctx.pin}; put {{pin}} in the profile's derived path to "
            "commit one per pin"
        )
    if own_report:
        _report_up_to_date(ctx, out)
    if own_derived:
        path = project_path(ctx.config.root, derived.target, generated=True)
        _loads_the_same(ctx, path, derived.target, derived.regenerate, out)
        _validates(ctx, derived, out)
        _no_unchosen_defaults(ctx, derived, out)
        _models_agree(ctx, derived, models, out)
        used = _actuators_agree(ctx, models, out)
        if launch is not None:
            _adhoc_launch(ctx, launch, models, out)
        else:
            _launches_verified(ctx, out, used)
        if world is not None:
            warn, note = loop_rate_line(ctx, world)
            (out.warnings if warn else out.passed).append(note)


def _launch_outcome(
    result: LaunchResult, out: CheckOutcome, file: str | None, line: int | None = None
) -> None:
    where = f"launch {result.name}"
    for note in result.notes:
        out.warnings.append(f"{where}: {note}")
    for f in result.findings:
        out.fail(f"{where}: {f.text}", f.fix, file, line)
    for f, a in result.acknowledged:
        out.passed.append(f"{where}: acknowledged ({a.reason[:60]}…): {f.text[:80]}")
    if result.passed:
        rows = ", ".join(f"{r.axis.name} {r.verdict}" for r in result.rows)
        if result.acknowledged:
            rows += f" ({len(result.acknowledged)} finding(s) acknowledged)"
        out.passed.append(
            f"{where}: {result.launch.text} — {result.backend.name}"
            + (f" with {result.model}" if result.model else "")
            + (f"; {rows}" if rows else "")
        )


def _launches_verified(ctx: Pin, out: CheckOutcome, used: set[int]) -> None:
    """Every declared launch end to end; acknowledgements that match nothing (no launch's
    finding, and none of the actuator findings, whose acknowledgements are ``used``) are
    stale. Without declared launches only the actuator acknowledgements are judged."""
    if not ctx.profile.launches:
        stale = [
            a
            for a in ctx.overlay().acknowledged
            if id(a) not in used and is_actuator_acknowledgement(a)
        ]
    else:
        results = ctx.launch_results()
        lines = {d.name: d.line for d in ctx.profile.launches}
        for result in results:
            _launch_outcome(result, out, ctx.config.file, lines.get(result.name))
        acknowledged = ctx.overlay().acknowledged
        stale = [a for a in stale_acknowledgements(acknowledged, results) if id(a) not in used]
    for a in stale:
        out.fail(
            f"{ctx.overlay().file}:{a.line}: acknowledgement of "
            f"{'launch ' + a.launch if a.launch else 'model ' + (a.model or '')} is stale: no "
            f"finding is {a.finding!r}"
            + (f" of the model with sha256 {a.sha256[:12]}…" if a.sha256 else ""),
            f"re-review it: remove it from {ctx.overlay().file}, or copy the finding and sha256 "
            "as check prints them now",
            ctx.overlay().file,
            a.line,
        )


def _adhoc_launch(ctx: Pin, text: str, models: list[Path], out: CheckOutcome) -> None:

    inputs = ctx.launch_inputs([text], models_given=bool(models))
    _launch_outcome(adhoc(inputs, text, models), out, None)


def _derived_up_to_date(ctx: Pin, derived: Derived, out: CheckOutcome) -> None:
    """The committed derived file (this pin's) equals what derive writes."""
    lines = ctx.derived_lines()
    path = project_path(ctx.config.root, derived.target, generated=True)
    result = check_file(path, lines, derived.target)
    if result.up_to_date:
        out.passed.append(f"{derived.target} is up to date")
    else:
        line = first_difference(path, lines)
        out.fail(
            f"{derived.target} differs from what derive writes",
            derived.regenerate,
            derived.target,
            line,
        )
        out.diffs.append(result.diff)


def _derived_model_up_to_date(ctx: Pin, derived: Derived, out: CheckOutcome) -> None:
    """The committed derived model (``thrusters: model:``) equals what derive writes."""
    from paramdiff.jobs.derive import model_outputs
    from paramdiff.jobs.report import thrust_findings

    # The roadmap's rule: the limits come from the data; a parameter that disagrees with it
    # is a finding about the vehicle's calibration, a warning, never a failure.
    out.warnings += [f"thruster data: {f}" for f in thrust_findings(ctx, ctx.thrust_summary())]
    for lines, where in model_outputs(ctx):
        assert where is not None and where.path is not None  # the profile's own path
        lines = list(lines)
        result = check_file(where.path, lines, where.label)
        if result.up_to_date:
            out.passed.append(f"{where.label} is up to date")
        else:
            out.fail(
                f"{where.label} differs from what derive writes",
                derived.regenerate,
                where.label,
                first_difference(where.path, lines),
            )
            out.diffs.append(result.diff)


def _report_up_to_date(ctx: Pin, out: CheckOutcome) -> None:
    """The committed report and its picture equal what report writes."""
    root = ctx.config.root
    report_path = ctx.profile.report_path(ctx.pin) or ""
    inputs = report_inputs(ctx)
    for path, lines in (
        (report_path, list(render_report(inputs))),
        (svg_path(report_path), list(render_picture(inputs))),
    ):
        file = project_path(root, path, generated=True)
        result = check_file(file, lines, path)
        if result.up_to_date:
            out.passed.append(f"{path} is up to date")
        else:
            out.fail(
                f"{path} differs from what report writes",
                f"paramdiff report --profile {ctx.profile.name} --pin {ctx.pin}",
                path,
                first_difference(file, lines),
            )
            out.diffs.append(result.diff)


def _loads_the_same(ctx: Pin, path: Path, label: str, regenerate: str, out: CheckOutcome) -> None:
    """The committed file read by each real loader (re-implemented in parse.loaders) must give
    the name → value map paramdiff reports for it (float32), every line within 98 bytes."""
    try:
        data = read_regular(path, limit=TEXT_LIMIT, label=label)
    except (OSError, InputError):
        return  # missing or not a regular file: the up-to-date check already said so
    verified = _already_read_back(ctx, data)
    if verified is not None:
        out.passed.append(_same_in_all_loaders(label, verified))
        return
    fix = (
        f"run: {regenerate} (a hand edit must keep every line NAME VALUE, or a # comment of at "
        f"most {LINE_MAX} bytes)"
    )
    try:
        reported = parse_params(data, label, "params").params
    except InputError as exc:
        out.fail(str(exc), fix, exc.file, exc.line)
        return
    expected = {name: (p.value, p.line) for name, p in reported.items()}
    found = [
        (
            n,
            f"{len(line)} bytes; ArduPilot's defaults reader reads {LINE_MAX} at a time and "
            "takes the rest for another line",
        )
        for n, line in enumerate(data.split(b"\n"), 1)
        if len(line.rstrip(b"\r")) > LINE_MAX
    ]
    for load in LOADERS.values():
        found += disagreements(expected, load(data))
    for n, what in sorted(found):
        out.fail(f"{label}:{n}: {what}", fix, label, n)
    if not found:
        out.passed.append(_same_in_all_loaders(label, len(expected)))


def _same_in_all_loaders(label: str, count: int) -> str:
    return (
        f"{label}: the same {count} values in all {len(LOADERS)} real loaders "
        "(ArduPilot, MAVProxy, Methodic Configurator, Mission Planner old/new, QGC)"
    )


def _already_read_back(ctx: Pin, data: bytes) -> int | None:
    """How many values the committed file holds, when its bytes are exactly what derive
    renders — every real loader already read those bytes back and agreed with the derived
    values (render/derived_file.py, verify_loaders) — and paramdiff's own reading of them (the
    derived source, parsed once) gives the same values as float32. None: check it in full."""
    if data != join_lines(ctx.derived_lines()).encode():
        return None
    parsed = ctx.derived_source().file.params
    want = {line.name: line.value for line in ctx.derived().lines}
    if parsed.keys() != want.keys():
        return None
    if any(
        p.value != want[name] and float32(p.value) != float32(want[name])
        for name, p in parsed.items()
    ):
        return None
    return len(parsed)


def _validates(ctx: Pin, derived: Derived, out: CheckOutcome) -> None:
    meta = ctx.metadata()
    if meta is None:
        return
    problems = validate(ctx.derived_source().file, meta, ctx.classifier())
    errors = [p for p in problems if p.severity == ERROR]
    for p in errors:
        out.fail(f"validate: {p}", p.fix_in(derived.overlay.file), derived.target, p.param.line)
    advisory = [p for p in problems if p.severity != ERROR]
    if advisory:
        out.warnings.append(
            f"{len(advisory)} shipped value(s) fall outside the metadata's advisory "
            f"range/enum/bits (e.g. {advisory[0].param.name}); list them with: "
            f"paramdiff validate {derived.target}"
        )
    if not errors:
        out.passed.append(f"{derived.target} validates against {meta.file}")


def _no_unchosen_defaults(ctx: Pin, derived: Derived, out: CheckOutcome) -> None:
    run = ctx.sitl_run()
    if run is None:
        return
    for f in run.flags:
        out.fail(
            f"layers: {f}",
            f"carry {f.effective.name} in the derived file (select it "
            f"in {derived.overlay.file}) or add a delta with a reason",
            derived.overlay.file,
            1,
        )
    if not run.flags:
        out.passed.append(f"no frame default of {run.layers.frame} survives unchosen")


def _models_agree(ctx: Pin, derived: Derived, models: list[Path], out: CheckOutcome) -> None:
    for name, file, data, resolve, role in _target_models(ctx, models):
        # A pinned model is the one the report checks too: checked once per pin.
        checked = ctx.pinned_check(role) if role else ctx.check_model(data, file, resolve)
        local = role is None
        channels, findings = checked.channels, checked.findings
        for finding in findings:
            if finding.fix_in == SOURCES:
                out.fail(
                    f"{name}: {finding}{finding.fix_text()}",
                    f"correct joint_roles of profile {ctx.profile.name} in sources.yaml",
                    "sources.yaml",
                    None,
                )
                continue
            out.fail(
                f"{name}: {finding}{finding.fix_text()}",
                f"fix the <control> blocks of {name} (jointName, servo_min/servo_max, "
                f"offset, multiplier sign) or add a delta in {derived.overlay.file}",
                file if local else derived.overlay.file,
                None if local else 1,
            )
        if not findings:
            out.passed.append(f"{name}: {len(channels)} channel(s) agree with {derived.target}")


def _target_models(
    ctx: Pin, extra: list[Path]
) -> list[tuple[str, str, bytes, Resolver, str | None]]:
    """(label, file, bytes, include resolver, pinned role or None: in this repository) of the
    profile's target models — pinned sdf roles (includes from the same commit, as locked) or
    paths in this repository — then of each --model file (includes from sibling folders, then
    GZ_SIM_RESOURCE_PATH)."""
    out: list[tuple[str, str, bytes, Resolver, str | None]] = []
    for target in ctx.profile.target_models:
        if target in ctx.specs:
            out.append((*ctx.pinned_model(target), target))
        else:
            path = project_path(ctx.config.root, target)
            out.append((target, target, read_local(path), local_resolver(), None))
    for p in extra:
        out.append((p.as_posix(), p.as_posix(), read_local(p), local_resolver(), None))
    return out


def _actuators_agree(ctx: Pin, models: list[Path], out: CheckOutcome) -> set[int]:
    """Actuator fidelity (fidelity.py): what passed, what failed; the acknowledgements used."""
    passed, failures, used = actuator_outcome(ctx, models)
    out.passed += passed
    for f in failures:
        out.fail(*f)
    return used
