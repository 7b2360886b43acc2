"""`check`'s rule for a pin's verification record (verified/<profile>-<pin>.json): a record
of another derived file is stale — a warning, or a failure with ``--require-confirmed``
(for teams who gate merges on a live run: a missing record, and values not confirmed, fail
too). A record that does not parse, or names another profile or pin, is an input error
(exit 2, raised by derive.record)."""

from __future__ import annotations

from paramdiff.check.outcome import CheckOutcome
from paramdiff.derive.record import check_expected, load_record, orphan_records, record_path
from paramdiff.digests import sha256_of
from paramdiff.files import TEXT_LIMIT, project_path, read_regular
from paramdiff.parse.param_text import parse_params
from paramdiff.pin import Pin
from paramdiff.project import Project


def record_outcome(ctx: Pin, out: CheckOutcome, require_confirmed: bool) -> None:
    """The pin's record against its committed derived file (whose digest the record names:
    it is what SITL loads)."""
    name, pin = ctx.profile.name, ctx.pin
    rel = record_path(name, pin)
    record = load_record(ctx.config.root, name, pin)
    fix = (
        f"start SITL on the derived file as its header says, then: paramdiff verify "
        f"CONNECTION --profile {name} --pin {pin} --record, and commit {rel}"
    )
    if record is None:
        if require_confirmed:
            out.fail(f"{rel}: no verification record of a running SITL", fix, rel, None)
        return
    target = ctx.profile.derived_path(pin) or record.derived_file
    try:
        data = read_regular(
            project_path(ctx.config.root, target, generated=True), TEXT_LIMIT, target
        )
    except FileNotFoundError:
        return  # the derived-file rules say so
    now = sha256_of(data)
    if record.derived_file != target or record.derived_sha256 != now:
        _finding(
            out,
            require_confirmed,
            f"{rel} is stale: it read back {record.derived_file} with sha256 "
            f"{record.derived_sha256[:12]}, and {target} is now {now[:12]} (a pin move, an overlay "
            "edit or a new paramdiff changed it since)",
            fix,
            rel,
        )
        return
    check_expected(record, parse_params(data, target, lenient=True).values())
    values = record.params.values()
    confirmed = sum(1 for p in values if p.matched)
    summary = f"{rel}: {confirmed} of {len(values)} values confirmed in SITL on "
    summary += f"{record.firmware.label}, {record.date}"
    if confirmed < len(values):
        _finding(out, require_confirmed, f"{summary}; the others differ or were not seen", fix, rel)
    else:
        out.passed.append(summary)


def _finding(out: CheckOutcome, fails: bool, finding: str, fix: str, file: str) -> None:
    """A failure with --require-confirmed, else a warning (with its fix)."""
    if fails:
        out.fail(finding, fix, file, None)
    else:
        out.warnings.append(f"{finding} — {fix}")


def orphan_warnings(options: Project) -> list[str]:
    """A warning for each file of verified/ that is no pin's record (a pin the profile does
    not have, a profile renamed): the report and check never read it, so it claims nothing."""
    pins = {name: list(p.pins) for name, p in options.config().profiles.items()}
    return [
        f"{rel} is no pin's verification record (no profile has its pin), so nothing reads "
        f"it — delete it (git rm {rel}), or record the pin it should be of"
        for rel in orphan_records(options.config().root, pins)
    ]
