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


@dataclass(frozen=True)
class Located:
    """A finding with the file and line to fix (for CI annotations); file relative to the
    project root, line None when the whole file is meant."""

    finding: str
    fix: str
    file: str | None
    line: int | None


@dataclass
class CheckOutcome:
    findings: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    located: list[Located] = field(default_factory=list)

    def fail(
        self, finding: str, fix: str, file: str | None = None, line: int | None = None
    ) -> None:
        self.findings.append(finding)
        self.located.append(Located(finding, fix, file, line))
        if fix not in self.fixes:
            self.fixes.append(fix)


def first_difference(path: Path, lines: list[str]) -> int:
    """The 1-based line where ``path`` first differs from ``lines`` (1 when it is missing)."""
    try:
        have = path.read_text(errors="replace").splitlines()
    except OSError:
        return 1
    for i, (a, b) in enumerate(zip(have, lines, strict=False), start=1):
        if a != b:
            return i
    return min(len(have), len(lines)) + 1


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
            # The role's entry in sources.yaml is what changed; fetch --update follows it.
            out.fail(exc.what, fetch_fix, ctx.config.file, spec.line)
    if out.findings:
        return out  # nothing below can be trusted without a consistent lock
    out.passed.append("sources.lock matches sources.yaml")
    try:
        derived = build(ctx)
    except StaleOverlayError as exc:
        out.fail(f"{exc.where}: {exc.what}", exc.fix or "review the overlay", exc.file, exc.line)
        return out
    out.passed.append(f"overlay {derived.overlay.file} is valid and not stale")
    regenerate = derived.regenerate
    lines = list(render(derived))
    result = check_file(ctx.config.root / derived.target, lines, derived.target)
    if result.up_to_date:
        out.passed.append(f"{derived.target} is up to date")
    else:
        line = first_difference(ctx.config.root / derived.target, lines)
        out.fail(
            f"{derived.target} differs from what derive writes", regenerate, derived.target, line
        )
        out.diffs.append(result.diff)
    report_path = ctx.profile.report_path(pin)
    inputs = gather(ctx, derived)
    if report_path:
        report = list(render_report(inputs))
        result = check_file(ctx.config.root / report_path, report, report_path)
        if result.up_to_date:
            out.passed.append(f"{report_path} is up to date")
        else:
            out.fail(
                f"{report_path} differs from what report writes",
                f"paramdiff report --profile {profile} --pin {pin}",
                report_path,
                first_difference(ctx.config.root / report_path, report),
            )
            out.diffs.append(result.diff)
    if ctx.metadata is not None:
        problems = validate(derived.source.file, ctx.metadata, ctx.classifier())
        advisory = [p for p in problems if p.severity != ERROR]
        for p in problems:
            if p.severity == ERROR:
                out.fail(
                    f"validate: {p}",
                    f"fix the value with a delta in {derived.overlay.file}",
                    derived.target,
                    p.param.line,
                )
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
                derived.overlay.file,
                1,
            )
        if not inputs.sitl.flags:
            out.passed.append(f"no frame default of {inputs.sitl.layers.frame} survives unchosen")
    params = derived.params()
    for name, file, data, local in _target_models(ctx, models or []):
        channels, _ = read_channels(data, file)
        findings = channel_findings(channels, params, ctx.profile.joint_roles, ctx.metadata)
        for finding in findings:
            in_model = f" — in the model: `{finding.fix}`" if finding.fix else ""
            out.fail(
                f"{name}: {finding}{in_model}",
                f"fix the <control> blocks of {name} (jointName, servo_min/servo_max, "
                f"offset, multiplier sign) or add a delta in {derived.overlay.file}",
                file if local else derived.overlay.file,
                None if local else 1,
            )
        if not findings:
            out.passed.append(f"{name}: {len(channels)} channel(s) agree with {derived.target}")
    return out


def _target_models(ctx: PinContext, extra: list[Path]) -> list[tuple[str, str, bytes, bool]]:
    """(label, file, bytes, in this repository) of the profile's target models — pinned sdf
    roles or paths in this repository — then of each --model file."""
    out: list[tuple[str, str, bytes, bool]] = []
    for target in ctx.profile.target_models:
        if target in ctx.specs:
            f = ctx.fetched([target])[target]
            out.append((f"{target} ({f.spec.repo}:{f.spec.path})", f.spec.path, f.data, False))
        else:
            out.append((target, target, read_local(ctx.config.root / target), True))
    for p in extra:
        out.append((p.as_posix(), p.as_posix(), read_local(p), True))
    return out
