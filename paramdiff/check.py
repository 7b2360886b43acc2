"""`paramdiff check`: everything CI needs to trust the committed outputs, in one command."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    lock = ctx.lock  # read here: a malformed lock is an input error (exit 2), not drift
    for spec in ctx.specs.values():
        try:
            require_entry(lock, profile, pin, spec)
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
    _check_derived_file(ctx, derived, render, out)
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


def _check_derived_file(ctx: PinContext, derived: Any, render: Any, out: CheckOutcome) -> None:
    """The committed derived file equals what derive writes — when it is this pin's file.
    One derived path without {pin} belongs to the default pin: another pin has nothing
    committed to compare (and `derive --pin` would refuse to overwrite it)."""
    profile = ctx.profile
    if ctx.pin != profile.default_pin and not profile.derived_is_per_pin():
        out.warnings.append(
            f"{derived.target} is pin {profile.default_pin}'s file (default_pin), so it is not "
            f"compared for pin {ctx.pin}; put {{pin}} in the profile's derived path to commit "
            "one per pin"
        )
        return
    result = check_file(ctx.config.root / derived.target, render(derived), derived.target)
    if result.up_to_date:
        out.passed.append(f"{derived.target} is up to date")
    else:
        out.fail(f"{derived.target} differs from what derive writes", derived.regenerate)
        out.diffs.append(result.diff)


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
