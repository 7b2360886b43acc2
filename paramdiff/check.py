"""`paramdiff check`: everything CI needs to trust the committed outputs, in one command."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigError, StaleOverlayError
from .localfiles import read_local
from .lock import require_entry
from .parse.sdf_include import Resolver, local_resolver
from .project import PinContext
from .sinks import check_file
from .stages.geometry import check_model, pinned_model, sitl_params


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
    from .report import gather, render_picture, render_report, svg_path
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
        picture = svg_path(report_path)
        result = check_file(ctx.config.root / picture, render_picture(inputs), picture)
        if result.up_to_date:
            out.passed.append(f"{picture} is up to date")
        else:
            out.fail(
                f"{picture} differs from what report writes",
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
    params = sitl_params(derived, inputs.sitl)
    for name, file, data, resolve in _target_models(ctx, models or []):
        checked = check_model(
            data,
            file,
            resolve,
            params,
            ctx.profile.joint_roles,
            ctx.profile.sitl_vehicle,
            ctx.metadata,
        )
        channels, findings = checked.channels, checked.findings
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


def _target_models(ctx: PinContext, extra: list[Path]) -> list[tuple[str, str, bytes, Resolver]]:
    """(label, file, bytes, include resolver) of the profile's target models — pinned sdf
    roles (includes from the same commit, as locked) or paths in this repository — then of
    each --model file (includes from sibling folders, then GZ_SIM_RESOURCE_PATH)."""
    out: list[tuple[str, str, bytes, Resolver]] = []
    for target in ctx.profile.target_models:
        if target in ctx.specs:
            label, file, data, resolve = pinned_model(ctx, target)
            out.append((label, file, data, resolve))
        else:
            path = ctx.config.root / target
            out.append((target, path.as_posix(), read_local(path), local_resolver()))
    for p in extra:
        out.append((p.as_posix(), p.as_posix(), read_local(p), local_resolver()))
    return out
