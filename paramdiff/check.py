"""`paramdiff check`: everything CI needs to trust the committed outputs, in one command."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .channels import channel_findings
from .errors import ConfigError, StaleOverlayError
from .localfiles import read_local
from .lock import require_entry
from .project import PinContext
from .sdf import read_channels
from .sinks import check_file


@dataclass
class CheckOutcome:
    findings: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def fail(self, finding: str, fix: str) -> None:
        self.findings.append(finding)
        if fix not in self.fixes:
            self.fixes.append(fix)


def run_check(ctx: PinContext, models: list[Path] | None = None) -> CheckOutcome:
    from .derive import build, render
    from .report import gather, render_report
    from .validate import ERROR, validate

    out = CheckOutcome()
    profile, pin = ctx.profile.name, ctx.pin
    fetch_fix = f"paramdiff fetch --profile {profile} --pin {pin} --update"
    for spec in ctx.specs.values():
        try:
            require_entry(ctx.lock, profile, pin, spec)
        except ConfigError as exc:
            out.fail(exc.what, fetch_fix)
    if out.findings:
        return out  # nothing below can be trusted without a consistent lock
    out.passed.append("sources.lock matches sources.yaml")
    try:
        derived = build(ctx)
    except StaleOverlayError as exc:
        out.fail(f"{exc.where}: {exc.what}", exc.fix or "review the overlay")
        return out
    out.passed.append(f"overlay {derived.overlay.file} is valid and not stale")
    regenerate = derived.regenerate
    result = check_file(ctx.config.root / derived.target, render(derived), derived.target)
    if result.up_to_date:
        out.passed.append(f"{derived.target} is up to date")
    else:
        out.fail(f"{derived.target} differs from what derive writes", regenerate)
        out.diffs.append(result.diff)
    _check_loaders(ctx.config.root / derived.target, derived.target, regenerate, out)
    report_path = ctx.profile.report_path(pin)
    inputs = gather(ctx, derived)
    if report_path:
        result = check_file(ctx.config.root / report_path, render_report(inputs), report_path)
        if result.up_to_date:
            out.passed.append(f"{report_path} is up to date")
        else:
            out.fail(
                f"{report_path} differs from what report writes",
                f"paramdiff report --profile {profile} --pin {pin}",
            )
            out.diffs.append(result.diff)
    if ctx.metadata is not None:
        problems = validate(derived.source.file, ctx.metadata, ctx.classifier())
        advisory = [p for p in problems if p.severity != ERROR]
        for p in problems:
            if p.severity == ERROR:
                out.fail(f"validate: {p}", f"fix the value with a delta in {derived.overlay.file}")
        if advisory:
            out.warnings.append(
                f"{len(advisory)} shipped value(s) fall outside the metadata's advisory "
                f"range/enum/bits (e.g. {advisory[0].param.name}); list them with: "
                f"paramdiff validate {derived.target}"
            )
        if not [p for p in problems if p.severity == ERROR]:
            out.passed.append(f"{derived.target} validates against {ctx.metadata.file}")
    if inputs.sitl is not None:
        for f in inputs.sitl.flags:
            out.fail(
                f"layers: {f}",
                f"carry {f.effective.name} in the derived file (select it "
                f"in {derived.overlay.file}) or add a delta with a reason",
            )
        if not inputs.sitl.flags:
            out.passed.append(f"no frame default of {inputs.sitl.layers.frame} survives unchosen")
    params = derived.params()
    for name, file, data in _target_models(ctx, models or []):
        channels, _ = read_channels(data, file)
        findings = channel_findings(channels, params, ctx.profile.joint_roles, ctx.metadata)
        for finding in findings:
            in_model = f" — in the model: `{finding.fix}`" if finding.fix else ""
            out.fail(
                f"{name}: {finding}{in_model}",
                f"fix the <control> blocks of {name} (jointName, servo_min/servo_max, "
                f"offset, multiplier sign) or add a delta in {derived.overlay.file}",
            )
        if not findings:
            out.passed.append(f"{name}: {len(channels)} channel(s) agree with {derived.target}")
    return out


def _check_loaders(path: Path, label: str, regenerate: str, out: CheckOutcome) -> None:
    """The committed file read by each real loader (re-implemented in parse.clients) must give
    the name → value map paramdiff reports for it (float32), every line within 98 bytes."""
    from .errors import InputError
    from .formats import parse_params
    from .parse.clients import LOADERS, disagreements
    from .render.params import LINE_MAX

    try:
        data = path.read_bytes()
    except OSError:
        return  # missing or unreadable: the up-to-date check above already failed
    fix = (
        f"run: {regenerate} (a hand edit must keep every line NAME VALUE, or a # comment of at "
        f"most {LINE_MAX} bytes)"
    )
    try:
        reported = parse_params(data, label, "params").params
    except InputError as exc:
        out.fail(str(exc), fix)
        return
    found: list[tuple[int, str]] = []
    for n, line in enumerate(data.split(b"\n"), 1):
        if len(line.rstrip(b"\r")) > LINE_MAX:
            found.append(
                (
                    n,
                    f"{len(line)} bytes; ArduPilot's defaults reader reads {LINE_MAX} "
                    "at a time and takes the rest for another line",
                )
            )
    expected = {name: (p.value, p.line) for name, p in reported.items()}
    for load in LOADERS.values():
        found += disagreements(expected, load(data))
    for n, what in sorted(found):
        out.fail(f"{label}:{n}: {what}", fix)
    if not found:
        out.passed.append(
            f"{label}: the same {len(expected)} values in all {len(LOADERS)} real loaders "
            "(ArduPilot, MAVProxy, Methodic Configurator, Mission Planner old/new, QGC)"
        )


def _target_models(ctx: PinContext, extra: list[Path]) -> list[tuple[str, str, bytes]]:
    """(label, file, bytes) of the profile's target models — pinned sdf roles or paths in
    this repository — then of each --model file."""
    out: list[tuple[str, str, bytes]] = []
    for target in ctx.profile.target_models:
        if target in ctx.specs:
            f = ctx.fetched([target])[target]
            out.append((f"{target} ({f.spec.repo}:{f.spec.path})", f.spec.path, f.data))
        else:
            out.append((target, target, read_local(ctx.config.root / target)))
    for p in extra:
        out.append((p.as_posix(), p.as_posix(), read_local(p)))
    return out
