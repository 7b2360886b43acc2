"""`paramdiff check`: everything CI needs to trust the committed outputs, in one command.

For each pin ``run_check`` checks the lock and verifies every locked file, then hands the
committed outputs to the rules (rules.py: each a small function that adds findings, with
the command that fixes them, to a ``CheckOutcome``); ``check_project`` does it for every
profile the user asked about. Every run computes every
rule: nothing of an earlier run's outcome is kept.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from paramdiff.check.outcome import CheckOutcome
from paramdiff.check.record_rule import orphan_warnings, record_outcome
from paramdiff.check.rules import check_outputs
from paramdiff.config.lock import require_entry
from paramdiff.config.sources import svg_path
from paramdiff.errors import ConfigError, DriftError, UsageError
from paramdiff.pin import Pin
from paramdiff.project import Project
from paramdiff.render.github import annotation


def check_contexts(
    options: Project, profile: str | None, pin: str | None, models: list[Path]
) -> list[Pin]:
    """The pins `check` covers. Without ``pin``: every pin of the named profile, or of every
    profile. With it: that pin of the named profile, or of every profile that has it (the
    default pin of those that do not)."""
    profiles = options.config().profiles
    if profile is None and models and len(profiles) > 1:
        raise UsageError("--model needs --profile: name the vehicle the model simulates")
    chosen = [options.config().profile(profile)] if profile is not None else list(profiles.values())
    if pin is not None and profile is not None:
        return [Pin(options, profile, pin)]
    if pin is not None:
        return [Pin(options, p.name, pin if pin in p.pins else None) for p in chosen]
    return [Pin(options, p.name, name) for p in chosen for name in p.pins]


def check_project(
    options: Project,
    profile: str | None,
    pin: str | None,
    models: list[Path],
    annotate: bool = False,
    launch: str | None = None,
    world: Path | None = None,
    require_confirmed: bool = False,
    verbose: bool = False,
) -> Iterator[str]:
    """`paramdiff check`: lines to print; raises DriftError naming every finding and fix.

    ``verbose``: every check that passed, a line each; else one line per pin counts them,
    so what failed is not buried under ~20 acknowledged findings (#31).

    ``annotate``: each finding also as a GitHub ``::error`` line on the file and line to fix.
    ``require_confirmed``: a pin's derived file needs a current verification record whose
    every value was confirmed in SITL (else a stale record is a warning).
    """
    findings: list[str] = []
    fixes: list[str] = []
    if launch is not None and profile is None and len(options.config().profiles) > 1:
        raise UsageError("--launch needs --profile: name the vehicle the launch runs")
    for ctx in check_contexts(options, profile, pin, models):
        outcome = run_check(
            ctx, models, launch, asked=pin is not None, world=world, require=require_confirmed
        )
        where = f"{ctx.profile.name} {ctx.pin}"
        # What failed first (#31: it was under the ok lines, the warnings and the diffs).
        yield from (f"FAIL  {where}: {f}" for f in outcome.findings)
        if verbose:
            yield from (f"ok    {where}: {line}" for line in outcome.passed)
        elif outcome.passed:
            yield f"ok    {where}: {passed_count(outcome.passed)}"
        yield from (f"warn  {where}: {line}" for line in outcome.warnings)
        yield from (diff.rstrip("\n") for diff in outcome.diffs)
        if annotate:
            yield from github_annotations(options.root, where, outcome)
        findings += [f"{where}: {f}" for f in outcome.findings]
        fixes += [f for f in outcome.fixes if f not in fixes]
    yield from (f"warn  {line}" for line in orphan_warnings(options))
    if findings:
        raise DriftError(findings, "; ".join(fixes))
    yield "check passed"


def passed_count(passed: list[str]) -> str:
    """The one line that stands for a pin's passed checks without --verbose."""
    acknowledged = sum(1 for line in passed if "acknowledged (" in line)
    of_them = f", {acknowledged} of them acknowledged findings" if acknowledged else ""
    return f"{len(passed)} checks passed{of_them} (paramdiff check -v lists them)"


def github_annotations(root: Path, label: str, outcome: CheckOutcome) -> Iterator[str]:
    """``::error`` lines, each path relative to the working directory (the repository root
    in a workflow), so GitHub puts it on the file in the pull request."""

    for loc in outcome.located:
        file = None
        if loc.file:
            path = Path(loc.file)
            file = path if path.is_absolute() else Path(os.path.relpath(root / path))
        yield annotation(
            f"{loc.finding} — {loc.fix}",
            file=file.as_posix() if file else None,
            line=loc.line,
            title=f"paramdiff check ({label})",
        )


def run_check(
    ctx: Pin,
    models: list[Path] | None = None,
    launch: str | None = None,
    asked: bool = True,
    world: Path | None = None,
    require: bool = False,
) -> CheckOutcome:
    """Every rule for one pin: its lock entries (each locked file verified), then the
    committed outputs the pin has — its derived file (and what is checked of it: loaders,
    validate, frame defaults, models, launches) when the derived path is this pin's, its
    report when the report path is. ``asked``: the pin was named (--pin), so say which
    outputs belong to another pin."""
    out = CheckOutcome()
    if not _lock_matches(ctx, out):
        return out  # nothing below can be trusted without a consistent lock
    _locked_files_verify(ctx, out)
    own_derived = _has_own(ctx.profile.derived, ctx, asked)
    own_report = _has_own(ctx.profile.report, ctx, asked, report=True)
    if not own_derived and not own_report:
        return out  # nothing committed for this pin: its lock was the check

    outputs = CheckOutcome()
    check_outputs(ctx, outputs, own_derived, own_report, asked, models or [], launch, world)
    out.extend(outputs)
    if own_derived:  # --require-confirmed decides what a finding is
        record_outcome(ctx, out, require)
    return out


def _has_own(template: str | None, ctx: Pin, asked: bool, report: bool = False) -> bool:
    """Whether an output (derived file or report) of this pin is to be checked: the default
    pin's always; another pin's when the path has ``{pin}`` and the pin was named (--pin) or
    its file is committed (a pin nobody reported on has no report to check)."""
    if not template:
        return False
    if ctx.pin == ctx.profile.default_pin:
        return True
    if "{pin}" not in template:
        return False
    path = template.replace("{pin}", ctx.pin)
    kept = (path, svg_path(path)) if report else (path,)
    return asked or any(os.path.lexists(ctx.config.root / p) for p in kept)


def _locked_files_verify(ctx: Pin, out: CheckOutcome) -> None:
    """Every role's locked file (and each it includes) is in the cache as verified for that
    repo, commit and path with the lock's size, sha256 and git blob id — or is fetched and
    verified now: an edited commit, size or digest fails here (exit 2, naming the role)."""
    metadata = set(ctx.metadata_roles())
    ctx.fetched([role for role in ctx.specs if role not in metadata])  # in parallel
    for role in metadata:
        ctx.locked_entry(role)  # hashed as read, not kept
    out.passed.append(
        f"the {len(ctx.specs)} locked file(s) verify (commit, size, sha256, git blob)"
    )


def _lock_matches(ctx: Pin, out: CheckOutcome) -> bool:
    fix = f"paramdiff fetch --profile {ctx.profile.name} --pin {ctx.pin} --update"
    lock = ctx.lock()  # read here: a malformed lock is an input error (exit 2), not drift
    for spec in ctx.specs.values():
        try:
            require_entry(lock, ctx.profile.name, ctx.pin, spec)
        except ConfigError as exc:
            # The role's entry in sources.yaml is what changed; fetch --update follows it.
            out.fail(exc.what, fix, ctx.config.file, spec.line)
    if not out.findings:
        out.passed.append("sources.lock matches sources.yaml")
    return not out.findings
